import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, textTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { startGatewayProcess } from "../testing/cli.ts";

test("a tool that throws from a timer and rejects a promise nobody awaits does not stop the gateway; the error names its file", async () => {
  const dir = makeTempDir("oa-crash-guard-");
  const tools = join(dir, ".openassistant", "tools");
  mkdirSync(tools, { recursive: true });
  writeFileSync(
    join(tools, "flaky.ts"),
    `import { defineTool, z } from "@openassistant/sdk";
setTimeout(() => { throw new Error("background sync failed"); }, 50);
setTimeout(() => { Promise.reject(new Error("nobody awaited this")); }, 80);
export default defineTool({ description: "Flaky", approval: "auto", args: z.object({}), run: async () => "ok" });
`,
  );
  const api = await startFakeAnthropic();
  api.script([textTurn("Still here.")]);
  const { proc, out, err } = startGatewayProcess({ cwd: dir, apiUrl: api.url });
  const killer = setTimeout(() => proc.kill("SIGKILL"), 25_000);
  try {
    await out.waitFor(/Ready in \d+ ms/);
    await err.waitFor(/nobody awaited this/);
    expect(err.text).toContain("error: uncaught exception from ");
    expect(err.text).toContain("flaky.ts");
    expect(err.text).toContain("background sync failed");
    expect(err.text).toContain("unhandled promise rejection");
    expect(err.text).toContain("The gateway keeps running");
    proc.stdin.write("are you alive?\n");
    await out.waitFor(/Still here\./);
    proc.stdin.end();
    expect(await proc.exited).toBe(0);
  } finally {
    clearTimeout(killer);
    await api.close();
  }
}, 30_000);

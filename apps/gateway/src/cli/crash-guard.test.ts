import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, textTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { startGatewayProcess } from "../../test/cli.ts";

const API_KEY = "sk-ant-api03-subprocess-test-000000000000";

// No race with the gateway's startup: the guard is installed before any tool file is imported, so
// errors thrown from the tool module's own timers are caught however slow the machine is.
test("a tool that throws from a timer and rejects a promise nobody awaits does not stop the gateway; the error names its file and hides secrets", async () => {
  const dir = makeTempDir("oa-crash-guard-");
  const tools = join(dir, ".openassistant", "tools");
  mkdirSync(tools, { recursive: true });
  writeFileSync(
    join(tools, "flaky.ts"),
    `import { defineTool, z } from "@openassistant/sdk";
setTimeout(() => { throw new Error("background sync failed with key " + process.env.ANTHROPIC_API_KEY); }, 0);
setTimeout(() => { Promise.reject(new Error("nobody awaited this")); }, 0);
export default defineTool({ description: "Flaky", approval: "auto", args: z.object({}), run: async () => "ok" });
`,
  );
  const api = await startFakeAnthropic();
  api.script([textTurn("Still here.")]);
  const { proc, out, err } = startGatewayProcess({ cwd: dir, apiUrl: api.url, env: { ANTHROPIC_API_KEY: API_KEY } });
  const killer = setTimeout(() => proc.kill("SIGKILL"), 55_000);
  try {
    await err.waitFor(/nobody awaited this/, 40_000);
    await out.waitFor(/Ready in \d+ ms/, 40_000);
    expect(err.text).toContain("error: uncaught exception from ");
    expect(err.text).toContain("flaky.ts");
    expect(err.text).toContain("background sync failed with key [redacted]");
    expect(err.text).not.toContain(API_KEY);
    expect(err.text).toContain("unhandled promise rejection");
    expect(err.text).toContain("The gateway keeps running");
    proc.stdin.write("are you alive?\n");
    await out.waitFor(/Still here\./, 40_000);
    proc.stdin.end();
    expect(await proc.exited).toBe(0);
  } finally {
    clearTimeout(killer);
    proc.kill("SIGKILL");
    await api.close();
  }
}, 60_000);

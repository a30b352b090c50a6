import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, textTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { MAIN } from "../testing/cli.ts";

async function readUntil(stream: ReadableStream<Uint8Array>, re: RegExp, sink: { text: string }, timeoutMs = 10_000): Promise<void> {
  const reader = stream.getReader();
  const deadline = Date.now() + timeoutMs;
  try {
    while (!re.test(sink.text)) {
      if (Date.now() > deadline) throw new Error(`no ${re} in:\n${sink.text}`);
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended without ${re}:\n${sink.text}`);
      sink.text += new TextDecoder().decode(value);
    }
  } finally {
    reader.releaseLock();
  }
}

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
  const proc = Bun.spawn(["bun", MAIN, "start"], {
    cwd: dir,
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME!,
      NO_COLOR: "1",
      OPENASSISTANT_CONFIG_DIR: join(dir, "config"),
      ANTHROPIC_API_KEY: "sk-ant-api03-crash-guard-test-0000000000",
      OPENASSISTANT_ANTHROPIC_BASE_URL: api.url,
    },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const killer = setTimeout(() => proc.kill("SIGKILL"), 25_000);
  const out = { text: "" };
  const err = { text: "" };
  try {
    await readUntil(proc.stdout, /Ready in \d+ ms/, out);
    await readUntil(proc.stderr, /nobody awaited this/, err);
    expect(err.text).toContain("error: uncaught exception from ");
    expect(err.text).toContain("flaky.ts");
    expect(err.text).toContain("background sync failed");
    expect(err.text).toContain("unhandled promise rejection");
    expect(err.text).toContain("The gateway keeps running");
    proc.stdin.write("are you alive?\n");
    await readUntil(proc.stdout, /Still here\./, out);
    proc.stdin.end();
    expect(await proc.exited).toBe(0);
  } finally {
    clearTimeout(killer);
    await api.close();
  }
}, 30_000);

/** `plugins list` shows each plugin's hooks and priority; `doctor` flags a critical plugin that would not load (#29). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeAnthropic, startFakeAnthropic } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { cli } from "../../../test/cli.ts";

let api: FakeAnthropic;
beforeAll(async () => {
  api = await startFakeAnthropic();
});
afterAll(() => api.close());

const GUARD = `import { definePlugin } from "@openassistant/sdk";
export default definePlugin({ hooks: { priority: 7, tool: { before: () => undefined }, run: { end: () => undefined } } });
`;

function project(files: Record<string, string>, config: object): string {
  const dir = makeTempDir("oa-cli-hooks-");
  mkdirSync(join(dir, ".openassistant", "tools"), { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, ".openassistant", "tools", name), text);
  writeFileSync(join(dir, ".openassistant", "config.json"), JSON.stringify(config));
  return dir;
}

describe("hooks in the CLI (real subprocesses)", () => {
  test("plugins list shows a plugin's hooks, their priority and that it is critical", async () => {
    const dir = project(
      { "guard.ts": GUARD },
      { config: { guard: { critical: true } }, workspace: { enabled: false } },
    );
    const r = await cli(["plugins", "list"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/guard\s+plugin|guard\s+tool/);
    expect(r.stdout).toContain(
      "    hooks (priority 7): tool.before, run.end · critical (the gateway does not start without it)",
    );
  }, 15_000);

  test("doctor fails on a critical plugin that would not load, saying start refuses", async () => {
    const dir = project(
      { "guard.ts": `throw new Error("broken on purpose");` },
      { config: { guard: { critical: true } }, workspace: { enabled: false } },
    );
    const r = await cli(["doctor"], {
      cwd: dir,
      env: { OPENASSISTANT_ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "sk-ant-api03-doctor-test-0000000000" },
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("✗ critical plugins: `start` refuses to start:");
    expect(r.stdout).toContain('critical plugin "guard" did not load');
  }, 15_000);
});

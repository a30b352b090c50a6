import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { cli, MAIN } from "../../test/cli.ts";

describe("openassistant start (real subprocesses)", () => {
  test("start without model credentials says exactly how to add them and exits non-zero", async () => {
    const dir = makeTempDir("oa-cli-");
    const r = await cli(["start"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("No Anthropic credentials are configured");
    expect(r.stderr).toContain("openassistant auth anthropic api-key");
    expect(r.stderr).toContain("ANTHROPIC_API_KEY");
    // Only the built-in tools.workspace.* (the assistant's own tool files) are there.
    expect(r.stdout).toMatch(/tools\.workspace\.writeTool +required/);
  }, 30_000); // a real gateway process: slow on a loaded machine

  test("a start that fails half way says why and exits 1 instead of hanging: the HTTP port is taken, the stored token is cut short", async () => {
    const dir = makeTempDir("oa-cli-start-fail-");
    const env = { ANTHROPIC_API_KEY: "sk-ant-api03-start-test-000000000000" };
    const taken = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("taken") });
    try {
      mkdirSync(join(dir, ".openassistant"), { recursive: true });
      writeFileSync(join(dir, ".openassistant", "config.jsonc"), JSON.stringify({ http: { port: taken.port } }));
      // By then the database, the receipt store's worker, the sandbox pool and the checker are open.
      const busy = await cli(["start"], { cwd: dir, env });
      expect(busy.stderr).toContain(`error: Failed to start server. Is port ${taken.port} in use?`);
      expect(busy.code).toBe(1);
      expect(busy.stderr).not.toContain("warm-up failed"); // closing, not failing

      writeFileSync(join(dir, ".openassistant", "data", "http-token"), "oa_cut\n", { mode: 0o600 });
      const cut = await cli(["start"], { cwd: dir, env });
      expect(cut.stderr).toMatch(/error: .*http-token is not an HTTP token made by the gateway.*Delete it/);
      expect(cut.code).toBe(1);
    } finally {
      taken.stop(true);
    }
  }, 40_000); // a hung start is killed after 15 s by cli() and then fails on its exit code

  test("bun start in a real process: workspace tool, approval answered on stdin, grounded answer, clean exit", async () => {
    const dir = makeTempDir("oa-cli-start-");
    mkdirSync(join(dir, ".openassistant", "tools"), { recursive: true });
    writeFileSync(
      join(dir, ".openassistant", "tools", "remind.ts"),
      `import { defineTool, z } from "@openassistant/sdk";
export default defineTool({
  description: "Create a reminder",
  approval: "required",
  args: z.object({ text: z.string() }),
  run: async ({ text }) => ({ id: "rem_1", text }),
});
`,
    );
    const api = await startFakeAnthropic();
    api.script([
      toolUseTurn({
        id: "toolu_1",
        name: "execute",
        input: { code: 'return await tools.remind({ text: "stretch" });' },
      }),
      textTurn("I've scheduled a reminder to stretch."),
    ]);
    const proc = Bun.spawn(["bun", MAIN, "start"], {
      cwd: dir,
      env: {
        PATH: process.env.PATH!,
        HOME: process.env.HOME!,
        OPENASSISTANT_CONFIG_DIR: join(dir, "config"),
        ANTHROPIC_API_KEY: "sk-ant-api03-start-test-000000000000",
        OPENASSISTANT_ANTHROPIC_BASE_URL: api.url,
      },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    // A bound for a hang, not a speed check: a whole gateway's start and one turn on a busy 2-core machine.
    const killer = setTimeout(() => proc.kill("SIGKILL"), 50_000);
    let out = "";
    const reader = proc.stdout.getReader();
    const waitFor = async (re: RegExp) => {
      while (!re.test(out)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stdout ended before ${re}:\n${out}`);
        out += new TextDecoder().decode(value);
      }
    };
    await waitFor(/Ready in \d+ ms/);
    expect(out).toMatch(/tools\.remind +required +Create a reminder/);
    proc.stdin.write("remind me to stretch\n");
    await waitFor(/deny with a reason/);
    expect(out).toContain('Input:\n  text: "stretch"\n');
    proc.stdin.write("a\n");
    await waitFor(/✅ remind succeeded \(approved by terminal:/);
    expect(out).toContain("I've scheduled a reminder to stretch.");
    expect(out).not.toContain("unverified");
    proc.stdin.end();
    const code = await proc.exited;
    clearTimeout(killer);
    await api.close();
    expect(code).toBe(0);
    expect(api.messageRequests()[0]!.headers.authorization).toBe("Bearer sk-ant-api03-start-test-000000000000");
  }, 60_000);
});

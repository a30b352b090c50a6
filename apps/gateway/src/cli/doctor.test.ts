import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { cli } from "../testing/cli.ts";

describe("openassistant doctor (real subprocesses)", () => {
  test("unknown flags are errors", async () => {
    const dir = makeTempDir("oa-cli-");
    const r = await cli(["doctor", "--frobnicate"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Unknown option "--frobnicate"');
  });

  test("doctor reports missing credentials with exit 1, and passes once a key is set", async () => {
    const dir = makeTempDir("oa-cli-");
    const bad = await cli(["doctor"], { cwd: dir });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("✗ credentials");
    expect(bad.stdout).toContain("✓ database: writable");
    const good = await cli(["doctor"], { cwd: dir, env: { ANTHROPIC_API_KEY: "sk-ant-api03-doctor-test-0000000000" } });
    expect(good.stdout).toContain("✓ credentials: Anthropic: env:ANTHROPIC_API_KEY");
    expect(good.stdout).not.toContain("sk-ant-api03-doctor");
    expect(good.code).toBe(0);
  }, 15_000);

  test("doctor checks the Discord token shape and tool problems", async () => {
    const dir = makeTempDir("oa-cli-");
    mkdirSync(join(dir, ".openassistant", "tools"), { recursive: true });
    writeFileSync(join(dir, ".openassistant", "config.json"), JSON.stringify({ discord: { token: "not-a-bot-token" } }));
    writeFileSync(join(dir, ".openassistant", "tools", "broken.ts"), "export default 42;\n");
    const r = await cli(["doctor"], { cwd: dir, env: { ANTHROPIC_API_KEY: "sk-ant-api03-doctor-test-0000000000" } });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("✗ discord: discord.token does not look like a bot token");
    expect(r.stdout).toMatch(/[✗⚠] tools: 0 loaded, \d+ problem/);
    expect(r.stdout).toContain("broken");
  }, 15_000);
});

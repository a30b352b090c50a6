import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit";

// Drives the real command in a child process, secrets on stdin (not a TTY), temp config dir.
const ENTRY = join(import.meta.dir, "auth.ts");
const TOKEN = `sk-ant-oat01-${"Zq9_".repeat(20)}wxyz`;
const KEY = "sk-ant-api03-kkkkkkkkkkkkkkkkkkkkkkkkkk1234";

async function cli(configDir: string, args: string[], stdin = "", extraEnv: Record<string, string> = {}) {
  const proc = Bun.spawn(["bun", ENTRY, "auth", ...args], {
    stdin: new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
    env: {
      PATH: process.env.PATH ?? "",
      HOME: configDir,
      OPENASSISTANT_CONFIG_DIR: configDir,
      NO_COLOR: "1",
      ...extraEnv,
    },
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}

function readStore(dir: string) {
  return JSON.parse(readFileSync(join(dir, "auth-profiles.json"), "utf8"));
}

describe("openassistant auth (subprocess, stdin)", () => {
  test("setup-token: validates, stores a token profile 0600, makes it preferred, never prints the token", async () => {
    const dir = makeTempDir();
    const key = await cli(dir, ["anthropic", "api-key"], `${KEY}\n`);
    expect(key.code).toBe(0);
    const r = await cli(dir, ["anthropic", "setup-token"], `${TOKEN}\n`);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Saved anthropic:manual (setup-token sk-ant-…wxyz)");
    expect(r.stdout).toContain("preferred");
    expect(r.stdout).toContain("openassistant auth anthropic api-key"); // the honest note about Claude Code-only tokens
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
    const path = join(dir, "auth-profiles.json");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const data = readStore(dir);
    expect(data.profiles.find((p: { id: string }) => p.id === "anthropic:manual")).toMatchObject({
      provider: "anthropic",
      type: "token",
      secret: TOKEN,
    });
    expect(data.preferred.anthropic).toEqual(["anthropic:manual", "anthropic:api-key"]);
  });

  test("setup-token: a truncated or wrong token is refused with exit 1 and nothing is written", async () => {
    const dir = makeTempDir();
    const short = await cli(dir, ["anthropic", "setup-token"], TOKEN.slice(0, 40));
    expect(short.code).toBe(1);
    expect(short.stderr).toContain("at least 80");
    const key = await cli(dir, ["anthropic", "setup-token"], KEY);
    expect(key.code).toBe(1);
    expect(key.stderr).toContain("openassistant auth anthropic api-key");
    expect(existsSync(join(dir, "auth-profiles.json"))).toBe(false);
  });

  test("api-key with --profile, list (masked, in order, env fallback shown), remove", async () => {
    const dir = makeTempDir();
    expect((await cli(dir, ["anthropic", "api-key", "--profile", "work"], KEY)).code).toBe(0);
    const refused = await cli(dir, ["anthropic", "api-key", "--profile=anthropic:proxy"], "proxy-key-0000000000009876");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'Anthropic API keys usually start with "sk-ant-": this is not one. Copy the key again, or pass --force',
    );
    expect(refused.stderr + refused.stdout).not.toContain("proxy-key-0000000000009876");
    const odd = await cli(
      dir,
      ["anthropic", "api-key", "--profile=anthropic:proxy", "--force"],
      "proxy-key-0000000000009876",
    );
    expect(odd.code).toBe(0);
    expect(odd.stderr).toContain('warning: Anthropic API keys usually start with "sk-ant-"');

    const list = await cli(dir, ["list"], "", { ANTHROPIC_API_KEY: "sk-ant-api03-envenvenvenvenv5555" });
    expect(list.code).toBe(0);
    const lines = list.stdout.split("\n");
    const proxy = lines.findIndex((l) => l.includes("anthropic:proxy"));
    const work = lines.findIndex((l) => l.includes("anthropic:work"));
    expect(proxy).toBeGreaterThan(0);
    expect(work).toBeGreaterThan(proxy); // newest preferred first
    expect(lines[work]).toContain("api-key  sk-ant-…1234  ok  never used");
    expect(list.stdout).toContain("env:ANTHROPIC_API_KEY  api-key  sk-ant-…5555");
    expect(list.stdout).not.toContain(KEY);

    const rm = await cli(dir, ["remove", "anthropic:work"]);
    expect(rm.code).toBe(0);
    expect(readStore(dir).profiles.map((p: { id: string }) => p.id)).toEqual(["anthropic:proxy"]);
    const again = await cli(dir, ["remove", "work"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('No auth profile "anthropic:work"');
  });

  test("a world-readable store is refused with the chmod command; unknown flags are errors", async () => {
    const dir = makeTempDir();
    expect((await cli(dir, ["anthropic", "api-key"], KEY)).code).toBe(0);
    const path = join(dir, "auth-profiles.json");
    chmodSync(path, 0o644);
    const r = await cli(dir, ["list"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`chmod 600 ${path}`);
    chmodSync(path, 0o600);
    const bad = await cli(dir, ["list", "--secret", "x"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Unknown option "--secret"');
  });
});

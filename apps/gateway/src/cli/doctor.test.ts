import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "@openassistant/core/db";
import { createSqliteReceiptStore } from "@openassistant/core/testing";
import { startFakeAnthropic, type FakeAnthropic } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { cli } from "../../test/cli.ts";

// The endpoint check contacts the endpoint in effect: the fake Anthropic here, never the real one.
let api: FakeAnthropic;
beforeAll(async () => {
  api = await startFakeAnthropic();
});
afterAll(() => api.close());
const FAKE = () => ({ OPENASSISTANT_ANTHROPIC_BASE_URL: api.url });
/** A port nothing listens on: bound, then closed. */
function closedPort(): string {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const url = `http://127.0.0.1:${s.port}`;
  s.stop(true);
  return url;
}

describe("openassistant doctor (real subprocesses)", () => {
  test("unknown flags are errors", async () => {
    const dir = makeTempDir("oa-cli-");
    const r = await cli(["doctor", "--frobnicate"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Unknown option "--frobnicate"');
  });

  test("doctor reports missing credentials with exit 1, and passes once a key is set", async () => {
    const dir = makeTempDir("oa-cli-");
    const bad = await cli(["doctor"], { cwd: dir, env: FAKE() });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("✗ credentials");
    expect(bad.stdout).toContain(
      `⚠ endpoint: ${api.url} (set by OPENASSISTANT_ANTHROPIC_BASE_URL) answers (HTTP 404); no credential to try it with`,
    );
    expect(bad.stdout).toContain("✓ database: writable");
    const good = await cli(["doctor"], {
      cwd: dir,
      env: { ...FAKE(), ANTHROPIC_API_KEY: "sk-ant-api03-doctor-test-0000000000" },
    });
    expect(good.stdout).toContain("✓ credentials: Anthropic: env:ANTHROPIC_API_KEY");
    expect(good.stdout).not.toContain("sk-ant-api03-doctor");
    expect(good.code).toBe(0);
  }, 15_000);

  test("doctor checks the Discord token shape and tool problems", async () => {
    const dir = makeTempDir("oa-cli-");
    mkdirSync(join(dir, ".openassistant", "tools"), { recursive: true });
    writeFileSync(
      join(dir, ".openassistant", "config.json"),
      JSON.stringify({ discord: { token: "not-a-bot-token" } }),
    );
    writeFileSync(join(dir, ".openassistant", "tools", "broken.ts"), "export default 42;\n");
    const r = await cli(["doctor"], {
      cwd: dir,
      env: { ...FAKE(), ANTHROPIC_API_KEY: "sk-ant-api03-doctor-test-0000000000" },
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("✗ discord: discord.token does not look like a bot token");
    expect(r.stdout).toMatch(/[✗⚠] tools: 7 loaded, \d+ problem/); // the built-in tools.workspace.* and tools.schedules.*
    expect(r.stdout).toContain("broken");
  }, 15_000);
});

describe("doctor catches the mistakes people make (real subprocesses)", () => {
  const KEY = { ANTHROPIC_API_KEY: "sk-ant-api03-doctor-test-0000000000" };
  const BOT = "MTA5ODc2NTQzMjEwOTg3NjU0.GaBcDe.abcdefghijklmnopqrstuvwxyz0123456789AB";

  test("Discord: names that are not ids, empty allowlists", async () => {
    const dir = makeTempDir("oa-doctor-");
    mkdirSync(join(dir, ".openassistant"), { recursive: true });
    writeFileSync(
      join(dir, ".openassistant", "config.json"),
      JSON.stringify({
        discord: { token: BOT, allowedUsers: ["@ann", "ann#1234", "123456789012345678"], guildId: "my server" },
      }),
    );
    const r = await cli(["doctor"], { cwd: dir, env: { ...KEY, ...FAKE() } });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("✗ discord ids: not Discord ids (they match nobody):");
    expect(r.stdout).toContain('discord.allowedUsers: "@ann"');
    expect(r.stdout).toContain('discord.allowedUsers: "ann#1234"');
    expect(r.stdout).toContain('discord.guildId: "my server"');
    expect(r.stdout).not.toContain('"123456789012345678"');
    expect(r.stdout).toContain("Copy ID");
    expect(r.stdout).not.toContain(BOT);

    writeFileSync(join(dir, ".openassistant", "config.json"), JSON.stringify({ discord: { token: BOT } }));
    const empty = await cli(["doctor"], { cwd: dir, env: { ...KEY, ...FAKE() } });
    expect(empty.stdout).toContain(
      "✗ discord access: discord.allowedUsers and discord.allowedRoles are both empty, so nobody can talk to the bot",
    );
  }, 20_000);

  test("the endpoint: names the variable in effect, contacts it, and a dead one is ✗", async () => {
    const dir = makeTempDir("oa-doctor-");
    const before = api.requests.length;
    const ok = await cli(["doctor"], { cwd: dir, env: { ...KEY, ...FAKE() } });
    expect(ok.stdout).toContain(
      `✓ endpoint: ${api.url} (set by OPENASSISTANT_ANTHROPIC_BASE_URL) answers; env:ANTHROPIC_API_KEY is accepted for claude-sonnet-5-5`,
    );
    expect(ok.code).toBe(0);
    const probe = api.requests.slice(before);
    expect(probe.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /v1/messages/count_tokens"]);
    expect(probe[0]!.body.model).toBe("claude-sonnet-5-5");

    const standard = await cli(["doctor"], { cwd: dir, env: { ...KEY, ANTHROPIC_BASE_URL: api.url } });
    expect(standard.stdout).toContain(
      `✓ endpoint: ${api.url} (set by ANTHROPIC_BASE_URL; OPENASSISTANT_ANTHROPIC_BASE_URL would take precedence) answers`,
    );

    const dead = closedPort();
    const r = await cli(["doctor"], {
      cwd: dir,
      env: { ...KEY, OPENASSISTANT_ANTHROPIC_BASE_URL: dead, ANTHROPIC_BASE_URL: api.url },
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `✗ endpoint: ${dead} (set by OPENASSISTANT_ANTHROPIC_BASE_URL) cannot be reached: ECONNREFUSED. Fix or unset OPENASSISTANT_ANTHROPIC_BASE_URL (now "${dead}"), or start what should answer there.`,
    );
    expect(r.stdout).not.toContain("✓ endpoint");
  }, 30_000);

  test("every config problem in one run, warnings marked as warnings", async () => {
    const dir = makeTempDir("oa-doctor-");
    mkdirSync(join(dir, ".openassistant"), { recursive: true });
    const file = join(dir, ".openassistant", "config.jsonc");
    writeFileSync(
      file,
      `{\n  "model": { "nme": "x", "maxTokens": "lots" },\n  "discord": { "allowedUser": [] },\n  "approvals": { "timeoutSeconds": -1 }\n}\n`,
    );
    const r = await cli(["doctor"], { cwd: dir, env: { ...KEY, ...FAKE() } });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("✗ config: 4 error(s):");
    for (const at of [
      ":2:14: model.nme",
      ":2:26: model.maxTokens",
      ":3:16: discord.allowedUser",
      ":4:18: approvals.timeoutSeconds",
    ])
      expect(r.stdout).toContain(`error ${file}${at}`);
    expect(r.stdout).not.toContain("more problem");
    // The checks that need no config still ran.
    expect(r.stdout).toContain("✓ credentials");
    expect(r.stdout).toContain(`✓ endpoint: ${api.url}`);

    writeFileSync(file, `{\n  "model": { "maxTokens": 4096 },\n  "model": { "maxTokens": 2048 }\n}\n`);
    const warned = await cli(["doctor"], { cwd: dir, env: { ...KEY, ...FAKE() } });
    expect(warned.stdout).toContain("⚠ config: 0 error(s), 1 warning(s):");
    expect(warned.stdout).toContain("warning config (");
    expect(warned.stdout).toContain("model is set more than once in this file");
    expect(warned.stdout).not.toContain("✗ config");
    expect(warned.stdout).toMatch(/All good\. \d+ warning\(s\)/);
    expect(warned.code).toBe(0);
  }, 30_000);

  test("credentials of the wrong shape: a setup-token stored as an API key, a malformed key", async () => {
    const dir = makeTempDir("oa-doctor-");
    const configDir = join(dir, "config");
    mkdirSync(configDir, { recursive: true });
    const token = `sk-ant-oat01-${"x".repeat(90)}`;
    writeFileSync(
      join(configDir, "auth-profiles.json"),
      JSON.stringify({
        version: 1,
        profiles: [
          {
            id: "anthropic:api-key",
            provider: "anthropic",
            type: "api_key",
            secret: token,
            createdAt: new Date().toISOString(),
          },
        ],
        preferred: { anthropic: ["anthropic:api-key"] },
      }),
      { mode: 0o600 },
    );
    const r = await cli(["doctor"], { cwd: dir, env: { ANTHROPIC_API_KEY: "not-a-key-at-all-00000" } });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      "✗ credentials: profile anthropic:api-key is stored as an API key but holds a Claude setup-token",
    );
    expect(r.stdout).toContain("openassistant auth anthropic setup-token");
    expect(r.stdout).toContain("⚠ credentials: ANTHROPIC_API_KEY does not look like an Anthropic API key");
    expect(r.stdout).not.toContain(token);
  }, 20_000);

  test("receipts: every run's chain is verified; an edited receipt is reported", async () => {
    const dir = makeTempDir("oa-doctor-");
    mkdirSync(join(dir, ".openassistant", "data"), { recursive: true });
    const dbPath = join(dir, ".openassistant", "data", "openassistant.sqlite");
    const db = openDatabase(dbPath);
    // Signed with the key in the config dir the CLI uses (cli() sets OPENASSISTANT_CONFIG_DIR to <dir>/config).
    const store = createSqliteReceiptStore(db, { keyDir: join(dir, "config") });
    for (const runId of ["run_a", "run_b"]) {
      store.append({
        runId,
        callId: "c1",
        toolPath: "notes.add",
        phase: "requested",
        approval: "auto",
        policy: "auto",
      });
      store.append({
        runId,
        callId: "c1",
        toolPath: "notes.add",
        phase: "succeeded",
        approval: "auto",
        policy: "auto",
        outputPreview: "ok",
      });
    }
    const ok = await cli(["doctor"], { cwd: dir, env: { ...KEY, ...FAKE() } });
    expect(ok.stdout).toMatch(/✓ receipts: 4 receipt\(s\) verify \(keyed chain, key .*config\/receipts\.key/);
    db.exec("DROP TRIGGER receipts_no_update");
    db.exec("UPDATE receipts SET output_preview = 'forged' WHERE run_id = 'run_b' AND phase = 'succeeded'");
    db.close();
    const bad = await cli(["doctor"], { cwd: dir, env: KEY });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/✗ receipts: receipts were changed outside the gateway: first bad row r_0+4/);
    const noKey = await cli(["doctor"], {
      cwd: dir,
      env: { ...KEY, OPENASSISTANT_CONFIG_DIR: join(dir, "elsewhere") },
    });
    expect(noKey.stdout).toContain("✗ receipts: no receipt key at");
  }, 20_000);

  test("a plugin's unset ${VAR} fails only that plugin; doctor, plugins list and receipts still work", async () => {
    const dir = makeTempDir("oa-doctor-");
    mkdirSync(join(dir, ".openassistant", "tools"), { recursive: true });
    mkdirSync(join(dir, ".openassistant", "plugins", "vault"), { recursive: true });
    writeFileSync(
      join(dir, ".openassistant", "plugins", "vault", "package.json"),
      JSON.stringify({ name: "vault", type: "module", openassistant: { entry: "./index.ts" } }),
    );
    writeFileSync(
      join(dir, ".openassistant", "plugins", "vault", "index.ts"),
      `import { defineTool, z } from "@openassistant/sdk";\nexport default () => ({ get: defineTool({ description: "get", approval: "auto", args: z.object({}), run: async () => 1 }) });\n`,
    );
    writeFileSync(
      join(dir, ".openassistant", "tools", "clock.ts"),
      `import { defineTool, z } from "@openassistant/sdk";\nexport default defineTool({ description: "now", approval: "auto", args: z.object({}), run: async () => 1 });\n`,
    );
    writeFileSync(
      join(dir, ".openassistant", "config.jsonc"),
      `{\n  "config": {\n    "vault": { "token": "\${VAULT_TOKEN_UNSET}" }\n  }\n}\n`,
    );
    const list = await cli(["plugins", "list"], { cwd: dir });
    expect(list.stdout).toMatch(/clock +tool +loaded/);
    expect(list.stdout).toMatch(/vault +plugin +error/);
    expect(list.stdout).toContain(
      "ERROR vault (.openassistant/config.jsonc:3:16): config.vault.token uses ${VAULT_TOKEN_UNSET}, which is not set",
    );
    const doctor = await cli(["doctor"], { cwd: dir, env: KEY });
    expect(doctor.stdout).toContain("✓ config");
    expect(doctor.stdout).toContain("VAULT_TOKEN_UNSET");
    expect(doctor.stdout).toMatch(/tools: 8 loaded, 1 problem/); // clock + the built-in tools.workspace.* and tools.schedules.*
    const receipts = await cli(["receipts"], { cwd: dir });
    expect(receipts.stderr).not.toContain("VAULT_TOKEN_UNSET");
    const start = await cli(["start"], { cwd: dir, env: KEY });
    expect(start.code).toBe(1);
    expect(start.stderr).toContain("environment variable VAULT_TOKEN_UNSET is not set");
  }, 30_000);
});

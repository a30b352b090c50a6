import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, configSecretValues } from "@openassistant/core/config";
import { marksSecret, SECRET_KEY } from "@openassistant/core/testing";
import { createToolRegistry } from "@openassistant/core/plugins";
import { createSecretRegistry } from "@openassistant/core/receipts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { z } from "zod";
import { gatewayConfigSchema, loadGatewayConfig } from "./config-schema.ts";

/*
 * The gateway's config: core's schema with the model section (model/config-schema.ts) and each
 * registered surface's section (surfaces/registry.ts). These cases were core's (load.test.ts,
 * secret-fields.test.ts) while core's schema held the `discord` section and the default model.
 */
const configSchema = gatewayConfigSchema();
const loadConfig = loadGatewayConfig;
/** The `discord` section as the surface's schema types it. */
const discord = (loaded: Awaited<ReturnType<typeof loadGatewayConfig>>) =>
  loaded.config.discord as { token?: string; allowedUsers: string[]; allowedRoles: string[] };

function layout(files: Record<string, string>): { root: string; home: string; project: string } {
  const root = makeTempDir("oa-config-");
  for (const [rel, text] of Object.entries(files)) {
    const p = join(root, rel);
    mkdirSync(join(p, ".."), { recursive: true });
    writeFileSync(p, text);
  }
  return { root, home: join(root, "home"), project: join(root, "proj") };
}

async function configError(p: Promise<unknown>): Promise<ConfigError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error("expected a ConfigError");
}

const load = (text: string | Buffer, env: Record<string, string> = {}) => {
  const { project, home, root } = layout({ "proj/.openassistant/.keep": "" });
  writeFileSync(join(project, ".openassistant/config.jsonc"), text);
  return {
    file: join(root, "proj/.openassistant/config.jsonc"),
    promise: loadConfig({ cwd: project, env, homeDir: home }),
  };
};

describe("loadConfig resolution and merge, with the gateway's sections", () => {
  test("defaults when no file exists", async () => {
    const { project, home } = layout({ "proj/package.json": "{}" });
    const loaded = await loadConfig({ cwd: project, env: {}, homeDir: home });
    expect(loaded.sources).toEqual([]);
    expect(loaded.projectRoot).toBe(project);
    expect(loaded.globalDir).toBe(join(home, ".config", "openassistant"));
    expect(loaded.config.model.name).toBe("claude-sonnet-5-5");
    expect(loaded.config.approvals.timeoutSeconds).toBe(600);
    expect(loaded.config.http.port).toBe(0);
    expect(discord(loaded).allowedUsers).toEqual([]);
    expect(loaded.config.policy.rules).toEqual([]);
  });

  test("project over global, deep merge of objects, arrays replaced, OPENASSISTANT_CONFIG on top", async () => {
    const { root, project, home } = layout({
      "home/.config/openassistant/config.json": JSON.stringify({
        plugins: ["a", "b"],
        model: { name: "global-model", maxTokens: 100 },
        discord: { allowedUsers: ["g1"], allowedRoles: ["r1"] },
        config: { cal: { timezone: "UTC", x: 1 } },
      }),
      "proj/.openassistant/config.jsonc": `{
        // project wins
        "plugins": ["c"],
        "model": { "name": "project-model" },
        "discord": { "allowedUsers": ["p1"] },
        "config": { "cal": { "timezone": "Europe/Oslo" } },
      }`,
      "override.json": JSON.stringify({ model: { maxRounds: 3 } }),
    });
    mkdirSync(join(project, "deep", "er"), { recursive: true });
    const loaded = await loadConfig({
      cwd: join(project, "deep", "er"),
      env: { OPENASSISTANT_CONFIG: join(root, "override.json") },
      homeDir: home,
    });
    expect(loaded.projectRoot).toBe(project);
    expect(loaded.sources).toEqual([
      join(home, ".config/openassistant/config.json"),
      join(project, ".openassistant/config.jsonc"),
      join(root, "override.json"),
    ]);
    expect(loaded.config.plugins).toEqual(["c"]);
    expect(loaded.config.model).toMatchObject({ name: "project-model", maxTokens: 100, maxRounds: 3 });
    expect(discord(loaded).allowedUsers).toEqual(["p1"]);
    expect(discord(loaded).allowedRoles).toEqual(["r1"]);
    expect(loaded.config.config.cal).toEqual({ timezone: "Europe/Oslo", x: 1 });
  });
});

describe("loadConfig errors name file, line, column and key path, in a surface's section too", () => {
  test("unknown key points at the key and lists the allowed keys", async () => {
    const { project, home } = layout({
      "proj/.openassistant/config.jsonc": `{\n  "discord": {\n    "allowedUser": []\n  }\n}`,
    });
    const err = await configError(loadConfig({ cwd: project, env: {}, homeDir: home }));
    expect([err.line, err.column]).toEqual([3, 5]);
    expect(err.keyPath).toBe("discord.allowedUser");
    expect(err.message).toContain('unknown key "allowedUser"');
    expect(err.message).toContain("allowedUsers");
  });
});

describe("interpolation", () => {
  test("${VAR} in string values, $${ escapes, keys untouched", async () => {
    const { project, home } = layout({
      "proj/.openassistant/config.json": JSON.stringify({
        discord: { token: "${DISCORD_TOKEN}" },
        config: { p: { "${KEY}": "a-${X}-b $${LIT}" } },
      }),
    });
    const loaded = await loadConfig({ cwd: project, env: { DISCORD_TOKEN: "tok", X: "${Y}", Y: "no" }, homeDir: home });
    expect(discord(loaded).token).toBe("tok");
    expect(loaded.config.config.p).toEqual({ "${KEY}": "a-${Y}-b ${LIT}" });
  });

  test("the missing-variable hint is honest about where Bun reads .env from", async () => {
    const { project, home } = layout({
      "proj/.openassistant/config.json": `{ "discord": { "token": "\${DISCORD_TOKEN}" } }`,
    });
    const err = await configError(loadConfig({ cwd: project, env: {}, homeDir: home }));
    expect(err.hint).toBe(
      "Set DISCORD_TOKEN in the environment before starting (Bun also reads .env from the directory you start in), or remove the reference.",
    );
    expect(err.message).not.toContain("(or .env)");
  });
});

describe("literal secrets", () => {
  test("warn without printing the secret", async () => {
    const secret = "sk-ant-api03-" + "x".repeat(40);
    const token = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.abcdefghijklmnopqrstuvwxyz";
    const { project, home } = layout({
      "proj/.openassistant/config.json": JSON.stringify(
        { discord: { token }, config: { a: { apiKey: secret, note: "short" } }, http: { token: "${HTTP_TOKEN}" } },
        null,
        2,
      ),
    });
    const loaded = await loadConfig({ cwd: project, env: { HTTP_TOKEN: "t".repeat(40) }, homeDir: home });
    const text = JSON.stringify(loaded.warnings);
    expect(loaded.warnings.map((w) => w.message.split(" ")[0])).toEqual(["discord.token", "config.a.apiKey"]);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(token);
    expect(loaded.warnings[0]!.hint).toContain("${DISCORD_TOKEN}");
    expect(loaded.warnings[0]!.line).toBe(3);
  });
});

describe("unusual config files", () => {
  test("a key written twice gives a warning at the repeat; the last one counts", async () => {
    const loaded = await load('{\n  "plugins": ["a"],\n  "discord": { "allowedUsers": ["1"] },\n  "plugins": ["b"]\n}')
      .promise;
    expect(loaded.config.plugins).toEqual(["b"]);
    expect(loaded.warnings.map((w) => [w.line, w.column, w.message])).toEqual([
      [4, 3, "plugins is set more than once in this file; only the last one counts"],
    ]);
  });

  test("a variable's value that contains ${OTHER} is not expanded again", async () => {
    const loaded = await load('{ "discord": { "token": "${A}" }, "model": { "system": "$${A} and ${B}" } }', {
      A: "val${B}",
      B: "bee",
    }).promise;
    expect(discord(loaded).token).toBe("val${B}");
    expect(loaded.config.model.system).toBe("${A} and bee");
  });
});

/** Every string field of a JSON Schema, as a path (`*` for a record's values), and whether it is marked secret. */
function stringFields(node: unknown, path: string[] = []): Array<{ path: string; marked: boolean }> {
  const s = node as Record<string, unknown>;
  if (!s || typeof s !== "object") return [];
  if (s.type === "string") return [{ path: path.join("."), marked: marksSecret(s) }];
  const out: Array<{ path: string; marked: boolean }> = [];
  for (const key of ["anyOf", "oneOf", "allOf"])
    for (const branch of (s[key] as unknown[] | undefined) ?? []) out.push(...stringFields(branch, path));
  for (const [k, sub] of Object.entries((s.properties as Record<string, unknown>) ?? {}))
    out.push(...stringFields(sub, [...path, k]));
  if (s.additionalProperties && typeof s.additionalProperties === "object")
    out.push(...stringFields(s.additionalProperties, [...path, "*"]));
  if (s.items) out.push(...stringFields(s.items, [...path, "[]"]));
  return out;
}

describe("the config's credentials are marked in its schema", () => {
  const fields = stringFields(z.toJSONSchema(configSchema, { unrepresentable: "any", io: "input" }));

  test("exactly these fields are credentials (a new one must be marked and listed here)", () => {
    expect([...new Set(fields.filter((f) => f.marked).map((f) => f.path))].sort()).toEqual([
      "discord.token",
      "http.token",
      "mcp.servers.*.env.*",
      "mcp.servers.*.headers.*",
      "mcp.servers.*.oauth.clientSecret",
      "model.apiKey",
      "model.fallbacks.[].apiKey",
      "openapi.*.auth.token",
      "openapi.*.auth.value",
      "storage.url",
    ]);
  });

  test("every string field whose name says credential is marked", () => {
    const unmarked = fields.filter((f) => SECRET_KEY.test(f.path.split(".").at(-1)!) && !f.marked).map((f) => f.path);
    expect(unmarked).toEqual([]);
  });

  test("the values of the marked fields are what the config's secrets are", () => {
    const config = configSchema.parse({
      discord: { token: "d-tok" },
      http: { token: "h-tok" },
      openapi: {
        a: { spec: "a.json", auth: { type: "header", name: "X-Key", value: "oa-hdr" } },
        b: { spec: "b.json", auth: { type: "query", name: "key", value: "oa-qry" } },
        c: { spec: "c.json", auth: { type: "bearer", token: "oa-bearer" } },
      },
      mcp: {
        servers: {
          web: {
            url: "http://127.0.0.1:1/mcp",
            headers: { "x-k": "mcp-hdr" },
            oauth: { clientId: "id", clientSecret: "mcp-cs" },
          },
          cli: { command: "srv", env: { K: "mcp-env" } },
        },
      },
      model: { system: "be brief" },
    });
    expect(configSecretValues(config, configSchema).sort()).toEqual(
      ["d-tok", "h-tok", "mcp-cs", "mcp-env", "mcp-hdr", "oa-bearer", "oa-hdr", "oa-qry"].sort(),
    );
  });
});

describe("a reload checks the config files with the gateway's schema", () => {
  test("a surface's section reloads; a credential added there reaches the redactor and is named as needing a restart", async () => {
    const { project, home } = layout({
      "proj/.openassistant/config.jsonc": `{ "discord": { "allowedUsers": ["1"] } }`,
    });
    const loaded = await loadGatewayConfig({ cwd: project, env: {}, homeDir: home });
    const secrets = createSecretRegistry();
    const registry = createToolRegistry({
      config: loaded,
      reloadConfig: true,
      env: {},
      cwd: project,
      homeDir: home,
      autoInstall: false,
      secrets,
    });
    await registry.ready;
    writeFileSync(
      join(project, ".openassistant/config.jsonc"),
      `{\n  "discord": { "allowedUsers": ["1"], "token": "literal-discord-token-7731" }\n}\n`,
    );
    const after = await registry.reload();
    expect(after.diagnostics.map((d) => [d.level, d.message])).toEqual([
      ["warning", "discord.token looks like a literal secret (26 characters, value not shown)"],
      [
        "warning",
        "discord.token changed: it applies after a restart; the running gateway keeps the value it started with",
      ],
    ]);
    expect(secrets.redact("token literal-discord-token-7731")).not.toContain("literal-discord-token-7731");
  });
});

import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { ConfigError, loadConfig } from "./index.ts";
import { locateConfigKey } from "./locate.ts";

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

describe("loadConfig resolution and merge", () => {
  test("defaults when no file exists", async () => {
    const { project, home } = layout({ "proj/package.json": "{}" });
    const loaded = await loadConfig({ cwd: project, env: {}, homeDir: home });
    expect(loaded.sources).toEqual([]);
    expect(loaded.projectRoot).toBe(project);
    expect(loaded.globalDir).toBe(join(home, ".config", "openassistant"));
    expect(loaded.config.model.name).toBe("claude-sonnet-5-5");
    expect(loaded.config.approvals.timeoutSeconds).toBe(600);
    expect(loaded.config.http.port).toBe(0);
    expect(loaded.config.discord.allowedUsers).toEqual([]);
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
    expect(loaded.config.discord.allowedUsers).toEqual(["p1"]);
    expect(loaded.config.discord.allowedRoles).toEqual(["r1"]);
    expect(loaded.config.config.cal).toEqual({ timezone: "Europe/Oslo", x: 1 });
  });

  test("OPENASSISTANT_CONFIG_DIR replaces the global dir", async () => {
    const { root, project, home } = layout({
      "proj/package.json": "{}",
      "elsewhere/config.jsonc": `{ "model": { "name": "from-dir" } }`,
    });
    const loaded = await loadConfig({
      cwd: project,
      env: { OPENASSISTANT_CONFIG_DIR: join(root, "elsewhere") },
      homeDir: home,
    });
    expect(loaded.config.model.name).toBe("from-dir");
    expect(loaded.globalDir).toBe(join(root, "elsewhere"));
  });

  test("a missing OPENASSISTANT_CONFIG file is an error", async () => {
    const { project, home } = layout({ "proj/package.json": "{}" });
    const err = await configError(
      loadConfig({ cwd: project, env: { OPENASSISTANT_CONFIG: "nope.json" }, homeDir: home }),
    );
    expect(err.message).toContain("OPENASSISTANT_CONFIG");
  });

  test("config.jsonc wins over config.json with a warning", async () => {
    const { project, home } = layout({
      "proj/.openassistant/config.json": `{ "model": { "name": "json" } }`,
      "proj/.openassistant/config.jsonc": `{ "model": { "name": "jsonc" } }`,
    });
    const loaded = await loadConfig({ cwd: project, env: {}, homeDir: home });
    expect(loaded.config.model.name).toBe("jsonc");
    expect(loaded.warnings.map((w) => w.message).join()).toContain("config.json is ignored");
  });
});

describe("loadConfig errors name file, line, column and key path", () => {
  test("JSONC syntax error with position", async () => {
    const { project, home } = layout({ "proj/.openassistant/config.jsonc": `{\n  "plugins": ["a"]\n  "tools": {}\n}` });
    const err = await configError(loadConfig({ cwd: project, env: {}, homeDir: home }));
    expect(err.file).toBe(join(project, ".openassistant/config.jsonc"));
    expect([err.line, err.column]).toEqual([3, 3]);
    expect(err.message).toContain("CommaExpected");
    expect(err.message).toContain("add a comma");
  });

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

  test("unknown top-level key", async () => {
    const { project, home } = layout({ "proj/.openassistant/config.json": `{ "plugin": [] }` });
    const err = await configError(loadConfig({ cwd: project, env: {}, homeDir: home }));
    expect(err.message).toMatch(/config\.json:1:3: plugin: unknown key "plugin"/);
  });

  test("wrong type names the path and position", async () => {
    const { project, home } = layout({
      "proj/.openassistant/config.json": `{\n "approvals": { "timeoutSeconds": "ten" },\n "policy": { "rules": [ { "match": "x", "mode": "sometimes" } ] }\n}`,
    });
    const err = await configError(loadConfig({ cwd: project, env: {}, homeDir: home }));
    expect(err.keyPath).toBe("approvals.timeoutSeconds");
    expect([err.line, err.column]).toEqual([2, 17]);
    expect(err.message).toContain("Use a number here");
    expect(err.message).toContain("1 more problem in this file");
  });

  test("bad enum lists allowed values", async () => {
    const { project, home } = layout({
      "proj/.openassistant/config.json": `{\n "policy": { "rules": [ { "match": "x", "mode": "sometimes" } ] }\n}`,
    });
    const err = await configError(loadConfig({ cwd: project, env: {}, homeDir: home }));
    expect(err.keyPath).toBe("policy.rules[0].mode");
    expect(err.message).toContain('"auto", "required", "deny"');
  });

  test("errors in the global file point at the global file", async () => {
    const { project, home } = layout({
      "proj/.openassistant/config.json": `{}`,
      "home/.config/openassistant/config.json": `{ "tools": { "x": "yes" } }`,
    });
    const err = await configError(loadConfig({ cwd: project, env: {}, homeDir: home }));
    expect(err.file).toBe(join(home, ".config/openassistant/config.json"));
    expect(err.keyPath).toBe("tools.x");
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
    expect(loaded.config.discord.token).toBe("tok");
    expect(loaded.config.config.p).toEqual({ "${KEY}": "a-${Y}-b ${LIT}" });
  });

  test("a missing variable names the variable, the key path and the position", async () => {
    const { project, home } = layout({
      "proj/.openassistant/config.json": `{\n  "config": {\n    "posthog": { "apiKey": "\${POSTHOG_API_KEY}" }\n  }\n}`,
    });
    const err = await configError(loadConfig({ cwd: project, env: {}, homeDir: home }));
    expect(err.message).toContain("POSTHOG_API_KEY is not set");
    expect(err.keyPath).toBe("config.posthog.apiKey");
    expect([err.line, err.column]).toEqual([3, 18]);
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

  test("locateConfigKey: the highest-priority file that defines the key, at the key", async () => {
    const { project, home, root } = layout({
      "home/.config/openassistant/config.jsonc": `{ "config": { "calendar": { "timezone": "UTC" } } }`,
      "proj/.openassistant/config.jsonc": `{\n  // project\n  "config": {\n    "calendar": { "timezone": "Mars/Olympus" }\n  }\n}`,
      "proj/.openassistant/other.jsonc": `{ "tools": {} }`,
    });
    const loaded = await loadConfig({
      cwd: project,
      env: { OPENASSISTANT_CONFIG: join(project, ".openassistant/other.jsonc") },
      homeDir: home,
    });
    expect(loaded.sources).toHaveLength(3);
    expect(locateConfigKey(loaded.sources, ["config", "calendar", "timezone"])).toEqual({
      file: join(root, "proj/.openassistant/config.jsonc"),
      line: 4,
      column: 19,
    });
    expect(locateConfigKey(loaded.sources, ["config", "calendar", "nope"])).toEqual({
      file: join(root, "proj/.openassistant/config.jsonc"),
      line: 4,
      column: 5,
    });
    expect(locateConfigKey(loaded.sources, ["model"])).toBeUndefined();
  });

  test("nesting and shell syntax are rejected", async () => {
    for (const bad of ["${A${B}}", "${A:-default}", "${A", "$(whoami)${}"]) {
      const { project, home } = layout({
        "proj/.openassistant/config.json": JSON.stringify({ model: { system: bad } }),
      });
      const err = await configError(loadConfig({ cwd: project, env: { A: "a", B: "b" }, homeDir: home }));
      expect(err.keyPath).toBe("model.system");
    }
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
  const load = (text: string | Buffer, env: Record<string, string> = {}) => {
    const { project, home, root } = layout({ "proj/.openassistant/.keep": "" });
    writeFileSync(join(project, ".openassistant/config.jsonc"), text);
    return {
      file: join(root, "proj/.openassistant/config.jsonc"),
      promise: loadConfig({ cwd: project, env, homeDir: home }),
    };
  };

  test("a UTF-8 byte order mark is ignored, and positions after it stay right", async () => {
    expect((await load('\uFEFF{ "plugins": ["./x"] }').promise).config.plugins).toEqual(["./x"]);
    const e = await configError(load('\uFEFF{\n  "plugin": [] }').promise);
    expect([e.line, e.column, e.keyPath]).toEqual([2, 3, "plugin"]);
  });

  test("an empty, whitespace-only or comment-only file is an empty config", async () => {
    for (const text of ["", "  \n\t", "// nothing yet\n/* later */\n"])
      expect((await load(text).promise).config.plugins).toEqual([]);
  });

  test("CRLF line endings, trailing commas and comments at the end", async () => {
    const ok = await load('{\r\n  "plugins": ["a",],\r\n  "tools": { "x": true, },\r\n}\r\n// bye\r\n/* end */')
      .promise;
    expect(ok.config.plugins).toEqual(["a"]);
    const e = await configError(load('{\r\n  // c\r\n  "model": {\r\n    "maxTokens": "x"\r\n  }\r\n}\r\n').promise);
    expect([e.line, e.column, e.keyPath]).toEqual([4, 5, "model.maxTokens"]);
  });

  test("a top-level array or null is an error saying to wrap the settings in an object", async () => {
    for (const text of ["[1, 2]", "null"]) {
      const e = await configError(load(text).promise);
      expect(e.keyPath).toBe("(root)");
      expect(e.hint).toContain("{ ... }");
    }
  });

  test("UTF-16 and binary files say to save as UTF-8 (not a JSON syntax error)", async () => {
    for (const bytes of [Buffer.from('\uFEFF{ "plugins": [] }', "utf16le"), Buffer.from([0x7b, 0xc3, 0x28, 0x7d])]) {
      const { file, promise } = load(bytes);
      const e = await configError(promise);
      expect(e.file).toBe(file);
      expect(e.problem).toContain("not");
      expect(e.problem).toContain("UTF-8");
      expect(e.hint).toContain("UTF-8");
    }
  });

  test("__proto__ keys are rejected at their position (they used to vanish silently)", async () => {
    const top = await configError(load('{ "__proto__": { "plugins": ["evil"] } }').promise);
    expect([top.line, top.column, top.keyPath]).toEqual([1, 3, "__proto__"]);
    const nested = await configError(load('{\n  "config": { "__proto__": { "enabled": false } } }').promise);
    expect([nested.line, nested.column, nested.keyPath]).toEqual([2, 15, "config.__proto__"]);
  });

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
    expect(loaded.config.discord.token).toBe("val${B}");
    expect(loaded.config.model.system).toBe("${A} and bee");
  });

  test("config.jsonc that is a directory says so", async () => {
    const { project, home } = layout({ "proj/.openassistant/config.jsonc/.keep": "" });
    const e = await configError(loadConfig({ cwd: project, env: {}, homeDir: home }));
    expect(e.hint).toContain("directory");
  });
});

describe("storage", () => {
  test('storage.url takes "${DATABASE_URL}"; absent, the stores stay on SQLite; anything but a PostgreSQL URL is refused naming the key', async () => {
    const url = "postgres://gateway:pw@db.internal:5432/openassistant";
    const shared = layout({
      "proj/.openassistant/config.json": JSON.stringify({ storage: { url: "${DATABASE_URL}" } }),
    });
    const loaded = await loadConfig({ cwd: shared.project, env: { DATABASE_URL: url }, homeDir: shared.home });
    expect(loaded.config.storage.url).toBe(url);
    const plain = layout({ "proj/package.json": "{}" });
    expect((await loadConfig({ cwd: plain.project, env: {}, homeDir: plain.home })).config.storage).toEqual({});
    const bad = layout({ "proj/.openassistant/config.json": JSON.stringify({ storage: { url: "mysql://db/x" } }) });
    const err = await configError(loadConfig({ cwd: bad.project, env: {}, homeDir: bad.home }));
    expect(err.keyPath).toBe("storage.url");
    expect(err.message).toContain("storage.url must be a PostgreSQL URL");
  });
});

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
  test("a missing variable names the variable, the key path and the position", async () => {
    const { project, home } = layout({
      "proj/.openassistant/config.json": `{\n  "config": {\n    "posthog": { "apiKey": "\${POSTHOG_API_KEY}" }\n  }\n}`,
    });
    const err = await configError(loadConfig({ cwd: project, env: {}, homeDir: home }));
    expect(err.message).toContain("POSTHOG_API_KEY is not set");
    expect(err.keyPath).toBe("config.posthog.apiKey");
    expect([err.line, err.column]).toEqual([3, 18]);
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

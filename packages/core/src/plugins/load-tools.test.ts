import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { isToolDefinition, z, type ToolDefinition } from "@openassistant/sdk";
import { indexToolTree } from "../tools/flatten.ts";
import { loadTools } from "./index.ts";
import { SDK_IMPORT, tempProject, toolSource } from "../../test/plugin-fixtures.ts";

const noInstall = { autoInstall: false } as const;

function tool(tree: unknown, path: string): ToolDefinition {
  const t = indexToolTree(tree as never).get(path);
  if (!t) throw new Error(`no tool ${path}`);
  return t;
}

const pluginFiles = (dir: string, id = "posthog", extra: Record<string, string> = {}) => ({
  [`${dir}/package.json`]: JSON.stringify({
    name: `@myorg/oa-${id}`,
    type: "module",
    peerDependencies: { "@openassistant/sdk": "*" },
    peerDependenciesMeta: { "@openassistant/sdk": { optional: true } },
    openassistant: { entry: "./index.ts" },
  }),
  [`${dir}/openassistant.json`]: JSON.stringify({
    id,
    name: "PostHog Analytics",
    configSchema: {
      type: "object",
      required: ["apiKey", "projectId"],
      properties: {
        apiKey: { type: "string" },
        projectId: { type: "string" },
        host: { type: "string", default: "https://us.posthog.com" },
      },
      additionalProperties: false,
    },
  }),
  [`${dir}/index.ts`]: `${SDK_IMPORT}
import type { PluginContext, ToolTree } from "@openassistant/sdk";
export default function register(ctx: PluginContext): ToolTree {
  ctx.logger.info("registering");
  return {
    analytics: {
      getVisitors: defineTool({ description: "Get visitor count", approval: "auto", args: z.object({ website: z.string() }),
        run: async (i) => ({ website: i.website, host: ctx.config.host, key: String(ctx.config.apiKey).length, dataDir: ctx.dataDir }) }),
    },
    monitor: {
      createThreshold: defineTool({ description: "Create a threshold alert", approval: "required", args: z.object({ website: z.string(), threshold: z.number() }), run: async (i) => i }),
    },
  };
}
`,
  ...extra,
});

describe("seed 000 scenarios", () => {
  test("scenario 1: a quick tool file outside the repo gets our SDK (same instance, zod through the SDK)", async () => {
    const p = tempProject({
      ".openassistant/tools/weather.ts": `${SDK_IMPORT}
export const zodIsOurs = z;
export default defineTool({
  description: "Get current weather",
  approval: "auto",
  args: z.object({ location: z.string() }),
  run: async ({ location }) => ({ location, tempC: 21 }),
});`,
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    expect(r.diagnostics).toEqual([]);
    const weather = tool(r.tree, "weather");
    expect(isToolDefinition(weather)).toBe(true);
    expect(weather.args instanceof z.ZodObject).toBe(true);
    expect(await weather.run({ location: "Oslo" })).toEqual({ location: "Oslo", tempC: 21 });
    expect(r.entries).toEqual([
      {
        id: "weather",
        kind: "tool",
        source: join(p.ws, "tools/weather.ts"),
        origin: "project",
        status: "loaded",
        tools: [{ path: "weather", approval: "auto", description: "Get current weather", enabled: true }],
      },
    ]);
    expect(r.declarations?.text).toContain("weather(input: {");
    expect(existsSync(join(p.root, "node_modules"))).toBe(false);
  });

  test("scenario 4: named exports become file.export; dashes normalised to _", async () => {
    const p = tempProject({
      ".openassistant/tools/github-issues.ts": `${SDK_IMPORT}
export const list = defineTool({ description: "List GitHub issues", approval: "auto",
  args: z.object({ repo: z.string(), state: z.enum(["open", "closed"]).default("open") }), run: async ({ repo, state }) => [repo, state] });
export const create = defineTool({ description: "Create a GitHub issue", approval: "required",
  args: z.object({ repo: z.string(), title: z.string(), body: z.string().optional() }), run: async (i) => i });
export const notATool = 42;`,
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    expect(r.diagnostics).toEqual([]);
    expect(r.entries[0]!.tools.map((t) => [t.path, t.approval])).toEqual([
      ["github_issues.create", "required"],
      ["github_issues.list", "auto"],
    ]);
    expect(await tool(r.tree, "github_issues.list").run({ repo: "a/b", state: "open" })).toEqual(["a/b", "open"]);
    expect(r.declarations!.text).toMatch(/github_issues: \{[\s\S]*create\(input[\s\S]*list\(input/);
  });

  test("scenario 2: workspace package plugin by relative path, manifest config with defaults and ${VAR}", async () => {
    const p = tempProject(
      {
        ...pluginFiles("packages/oa-posthog"),
        ".openassistant/config.json": JSON.stringify({
          plugins: ["./packages/oa-posthog"],
          config: { posthog: { apiKey: "${POSTHOG_API_KEY}", projectId: "12345" } },
        }),
      },
      { POSTHOG_API_KEY: "phc_secret_value" },
    );
    const logs: string[] = [];
    const r = await loadTools({ ...p.opts, ...noInstall, log: (level, msg) => logs.push(`${level} ${msg}`) });
    expect(r.diagnostics).toEqual([]);
    const entry = r.entries[0]!;
    expect(entry).toMatchObject({
      id: "posthog",
      kind: "plugin",
      origin: "path",
      status: "loaded",
      name: "PostHog Analytics",
      specifier: "./packages/oa-posthog",
      source: join(p.root, "packages/oa-posthog"),
    });
    expect(entry.tools.map((t) => `${t.path}:${t.approval}`)).toEqual([
      "posthog.analytics.getVisitors:auto",
      "posthog.monitor.createThreshold:required",
    ]);
    const out = (await tool(r.tree, "posthog.analytics.getVisitors").run({ website: "x.com" })) as Record<
      string,
      unknown
    >;
    expect(out).toEqual({
      website: "x.com",
      host: "https://us.posthog.com",
      key: "phc_secret_value".length,
      dataDir: join(p.ws, "data", "posthog"),
    });
    expect(existsSync(join(p.ws, "data", "posthog"))).toBe(true);
    expect(logs).toEqual(["info [posthog] registering"]);
    expect(r.declarations!.text).toMatch(
      /posthog: \{\s+analytics: \{[\s\S]*getVisitors[\s\S]*monitor: \{[\s\S]*createThreshold/,
    );
  });

  test("absolute paths and file:// URLs, plus a convention plugin dir, all merged with plugin namespaces in the declarations", async () => {
    const p = tempProject({
      ...pluginFiles("elsewhere/a", "alpha"),
      ...pluginFiles("elsewhere/b", "beta"),
      ...pluginFiles(".openassistant/plugins/gamma", "gamma"),
      ".openassistant/tools/clock.ts": toolSource("What time is it"),
    });
    const cfg = {
      alpha: { apiKey: "k", projectId: "1" },
      beta: { apiKey: "k", projectId: "2" },
      gamma: { apiKey: "k", projectId: "3" },
    };
    p.write(
      ".openassistant/config.jsonc",
      JSON.stringify({ plugins: [join(p.root, "elsewhere/a"), `file://${join(p.root, "elsewhere/b")}`], config: cfg }),
    );
    const r = await loadTools({ ...p.opts, ...noInstall });
    expect(r.diagnostics).toEqual([]);
    expect(r.entries.map((e) => `${e.id}:${e.origin}`)).toEqual([
      "clock:project",
      "gamma:project",
      "alpha:path",
      "beta:path",
    ]);
    const text = r.declarations!.text;
    for (const ns of ["alpha", "beta", "gamma"]) expect(text).toContain(`  ${ns}: {\n    analytics: {`);
    expect(text).toContain("clock(input:");
  });
});

describe("fault isolation: each broken entry is skipped with a diagnostic, the rest load", () => {
  test("import failure, defineTool throw, nothing exported, factory throw, invalid manifest, invalid config", async () => {
    const p = tempProject({
      ".openassistant/tools/good.ts": toolSource("Good tool"),
      ".openassistant/tools/syntax.ts": `${SDK_IMPORT}\nexport default defineTool({ description: "x", approval: "auto", args: z.object({}), run: async () => { return ( } });`,
      ".openassistant/tools/missing-dep.ts": `import leftPad from "left-pad-not-installed-anywhere";\nexport default leftPad;`,
      ".openassistant/tools/bad-define.ts": `${SDK_IMPORT}\nexport default defineTool({ description: "", approval: "auto", args: z.object({}), run: async () => 1 });`,
      ".openassistant/tools/empty.ts": `export const x = 1;`,
      ".openassistant/tools/boom.ts": `export default function () { throw new Error("factory exploded"); }`,
      ".openassistant/plugins/badmanifest/package.json": JSON.stringify({
        name: "badmanifest",
        openassistant: { entry: "./index.ts" },
      }),
      ".openassistant/plugins/badmanifest/openassistant.json": JSON.stringify({ id: "bad-id!", configSchema: "nope" }),
      ".openassistant/plugins/badmanifest/index.ts": `throw new Error("must never run");`,
      ".openassistant/plugins/notaplugin/package.json": JSON.stringify({ name: "notaplugin" }),
      ...pluginFiles(".openassistant/plugins/posthog"),
      ".openassistant/config.json": JSON.stringify({ config: { posthog: { apiKey: "k", colour: "red" } } }),
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    const status = Object.fromEntries(r.entries.map((e) => [e.id, e.status]));
    expect(status).toEqual({
      bad_define: "error",
      boom: "error",
      empty: "error",
      good: "loaded",
      missing_dep: "error",
      syntax: "error",
      badmanifest: "error",
      notaplugin: "error",
      posthog: "error",
    });
    expect(Object.keys(r.tree)).toEqual(["good"]);
    const diag = (id: string) => {
      const d = r.diagnostics.find((x) => x.id === id);
      if (!d) throw new Error(`no diagnostic for ${id}: ${JSON.stringify(r.diagnostics)}`);
      expect(d.level).toBe("error");
      expect(d.hint.length).toBeGreaterThan(10);
      return d;
    };
    expect(diag("bad_define").message).toContain('defineTool: "description" must be a non-empty string');
    expect(diag("bad_define").hint).toContain("bad-define.ts");
    expect(diag("missing_dep").message).toContain("left-pad-not-installed-anywhere");
    expect(diag("missing_dep").hint).toContain("openassistant plugins install");
    expect(diag("syntax").source).toBe(join(p.ws, "tools/syntax.ts"));
    expect(diag("empty").message).toContain("exports no tool (exports: x)");
    expect(diag("boom").message).toContain("factory exploded");
    expect(diag("badmanifest").message).toContain("openassistant.json is invalid");
    expect(diag("badmanifest").source).toBe(join(p.ws, "plugins/badmanifest/openassistant.json"));
    expect(diag("notaplugin").message).toContain('no "openassistant" object');
    const ph = diag("posthog");
    expect(ph.message).toContain('config.posthog: missing required key "projectId"');
    expect(ph.message).toContain('unknown key "colour"');
    expect(r.declarations!.text).toContain("good(input");
  });

  test("a plugin's config is validated before its code runs", async () => {
    const p = tempProject({
      ...pluginFiles(".openassistant/plugins/posthog", "posthog", {
        ".openassistant/plugins/posthog/index.ts": `globalThis.__oaRan = true; export default () => ({});`,
      }),
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    expect(r.entries[0]!.status).toBe("error");
    expect((globalThis as { __oaRan?: boolean }).__oaRan).toBeUndefined();
  });

  test("npm specifier not installed / version out of range", async () => {
    const p = tempProject({
      ...pluginFiles("node_modules/oa-versioned", "versioned"),
      ".openassistant/config.json": JSON.stringify({
        plugins: ["openassistant-plugin-nothere@^1.0.0", "oa-versioned@^2.0.0"],
        config: { versioned: { apiKey: "k", projectId: "1" } },
      }),
    });
    p.write(
      "node_modules/oa-versioned/package.json",
      JSON.stringify({ name: "oa-versioned", version: "1.4.0", openassistant: { entry: "./index.ts" } }),
    );
    const r = await loadTools({ ...p.opts, ...noInstall });
    expect(r.entries.map((e) => `${e.id}:${e.origin}:${e.status}`)).toEqual([
      "nothere:npm:error",
      "versioned:npm:error",
    ]);
    expect(r.diagnostics[0]!.hint).toContain("openassistant plugins install");
    expect(r.diagnostics[1]!.message).toContain('installed oa-versioned@1.4.0 does not satisfy "^2.0.0"');
    p.write(
      ".openassistant/config.json",
      JSON.stringify({ plugins: ["oa-versioned@^1.2"], config: { versioned: { apiKey: "k", projectId: "1" } } }),
    );
    const ok = await loadTools({ ...p.opts, ...noInstall });
    expect(ok.entries[0]).toMatchObject({ id: "versioned", origin: "npm", status: "loaded" });
  });
});

describe("precedence, duplicates and collisions", () => {
  test("built-ins > config.plugins > project > global: a name is never taken over, each refusal is an error naming both", async () => {
    const p = tempProject({
      ".openassistant/tools/weather.ts": toolSource("project weather"),
      "~/tools/weather.ts": toolSource("global weather"),
      "~/tools/translate.ts": toolSource("global translate"),
      ".openassistant/tools/clock.ts": toolSource("project clock"),
      "~/tools/clock.ts": toolSource("global clock"),
      ...pluginFiles("plug", "translate"),
      ".openassistant/config.json": JSON.stringify({
        plugins: ["./plug"],
        config: { translate: { apiKey: "k", projectId: "1" } },
      }),
    });
    const bundledTool = (await import("@openassistant/sdk")).defineTool({
      description: "bundled",
      approval: "auto",
      args: z.object({}),
      run: async () => "b",
    });
    const r = await loadTools({
      ...p.opts,
      ...noInstall,
      bundled: [
        { id: "weather", tools: { now: bundledTool } },
        { id: "core", tools: { ping: bundledTool } },
      ],
    });
    expect(r.entries.map((e) => `${e.id}:${e.origin}`)).toEqual([
      "clock:project",
      "translate:path",
      "weather:bundled",
      "core:bundled",
    ]);
    expect(tool(r.tree, "weather.now").description).toBe("bundled");
    expect(tool(r.tree, "translate.analytics.getVisitors").description).toBe("Get visitor count");
    expect(tool(r.tree, "clock").description).toBe("project clock");
    const errors = r.diagnostics.filter((d) => d.level === "error");
    expect(errors.map((d) => [d.id, d.source])).toEqual([
      ["weather", join(p.ws, "tools/weather.ts")],
      ["clock", join(p.globalDir, "tools/clock.ts")],
      ["translate", join(p.globalDir, "tools/translate.ts")],
      ["weather", join(p.globalDir, "tools/weather.ts")],
    ]);
    expect(errors[0]!.message).toBe(
      `tool file ${join(p.ws, "tools/weather.ts")} is not loaded: tools.weather already belongs to the built-in tools.weather (it comes first (docs/plugins.md, "Who owns a name")); a source never takes over another's name`,
    );
    expect(errors[0]!.hint).toContain(`Rename ${join(p.ws, "tools/weather.ts")}`);
    expect(errors[2]!.message).toContain(
      `tools.translate already belongs to plugin "translate" (${join(p.root, "plug")})`,
    );
    expect(r.diagnostics.filter((d) => d.level === "info")).toEqual([]);
  });

  test("two different tools with the same final path: error naming both sources, the first is kept", async () => {
    const p = tempProject({
      ".openassistant/tools/github-issues.ts": toolSource("dash version"),
      ".openassistant/tools/github_issues.ts": toolSource("underscore version"),
      ...pluginFiles(".openassistant/plugins/posthog-x", "github_issues"),
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    expect(tool(r.tree, "github_issues").description).toBe("dash version");
    const errors = r.diagnostics.filter((d) => d.level === "error");
    expect(errors).toHaveLength(2);
    expect(errors[0]!.message).toContain(join(p.ws, "tools/github-issues.ts"));
    expect(errors[0]!.message).toContain(join(p.ws, "tools/github_issues.ts"));
    expect(errors[1]!.message).toContain(join(p.ws, "plugins/posthog-x"));
  });
});

describe("enable/disable via config", () => {
  test("config.tools by id, path and pattern; config.<id>.enabled false skips the plugin without running it", async () => {
    const p = tempProject({
      ".openassistant/tools/clock.ts": toolSource("clock"),
      ".openassistant/tools/danger.ts": `throw new Error("disabled tools are not imported");`,
      ".openassistant/tools/gh.ts": `${SDK_IMPORT}
const t = (d: string) => defineTool({ description: d, approval: "auto", args: z.object({}), run: async () => d });
export const list = t("list"); export const create = t("create"); export const close = t("close");`,
      ...pluginFiles(".openassistant/plugins/posthog", "posthog", {
        ".openassistant/plugins/posthog/index.ts": `throw new Error("disabled plugins are not imported");`,
      }),
      ".openassistant/config.jsonc": JSON.stringify({
        tools: { danger: false, "gh.*": false, "gh.list": true },
        config: { posthog: { enabled: false } },
      }),
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    expect(r.entries.map((e) => `${e.id}:${e.status}`)).toEqual([
      "clock:loaded",
      "danger:disabled",
      "gh:loaded",
      "posthog:disabled",
    ]);
    expect(r.entries[2]!.tools.map((t) => `${t.path}:${t.enabled}`)).toEqual([
      "gh.close:false",
      "gh.create:false",
      "gh.list:true",
    ]);
    expect([...indexToolTree(r.tree).keys()]).toEqual(["clock", "gh.list"]);
    expect(r.declarations!.text).not.toContain("create(");
    expect(r.diagnostics.filter((d) => d.level !== "info")).toEqual([]);
  });
});

describe("definePlugin: a typed plugin config", () => {
  const typedPlugin = (dir: string) => ({
    [`${dir}/package.json`]: JSON.stringify({ name: "typed", type: "module", openassistant: { entry: "./index.ts" } }),
    [`${dir}/index.ts`]: `${SDK_IMPORT}
import { definePlugin } from "@openassistant/sdk";
export default definePlugin({
  config: z.object({ region: z.enum(["eu", "us"]), limit: z.number().int().default(10) }),
  tools: (ctx) => ({
    show: defineTool({ description: "Show config", approval: "auto", args: z.object({}), run: async () => ({ region: ctx.config.region, limit: ctx.config.limit }) }),
  }),
});`,
  });

  test("config is validated against the zod schema and handed over with its defaults", async () => {
    const p = tempProject({
      ...typedPlugin("plugins/typed"),
      ".openassistant/config.json": JSON.stringify({
        plugins: ["./plugins/typed"],
        config: { typed: { region: "eu" } },
      }),
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    expect(r.diagnostics).toEqual([]);
    expect(await tool(r.tree, "typed.show").run({})).toEqual({ region: "eu", limit: 10 });
  });

  test("config fields the plugin marks secret are registered (zod .meta({ secret: true }), manifest writeOnly), and its log lines are scrubbed", async () => {
    const p = tempProject({
      "plugins/marked/package.json": JSON.stringify({
        name: "marked",
        type: "module",
        openassistant: { entry: "./index.ts" },
      }),
      "plugins/marked/index.ts": `${SDK_IMPORT}
import { definePlugin } from "@openassistant/sdk";
export default definePlugin({
  config: z.object({ pin: z.string().meta({ secret: true }), region: z.string() }),
  tools: (ctx) => {
    ctx.logger.info("pin is " + ctx.config.pin, { pin: ctx.config.pin });
    return { show: defineTool({ description: "Show", approval: "auto", args: z.object({}), run: async () => ({}) }) };
  },
});`,
      "plugins/manifested/package.json": JSON.stringify({
        name: "manifested",
        type: "module",
        openassistant: { entry: "./index.ts" },
      }),
      "plugins/manifested/openassistant.json": JSON.stringify({
        configSchema: {
          type: "object",
          properties: { label: { type: "string" }, code: { type: "string", writeOnly: true } },
        },
      }),
      "plugins/manifested/index.ts": `${SDK_IMPORT}
export default () => ({ show: defineTool({ description: "Show", approval: "auto", args: z.object({}), run: async () => ({}) }) });`,
      ".openassistant/config.json": JSON.stringify({
        plugins: ["./plugins/marked", "./plugins/manifested"],
        config: { marked: { pin: "ñ4-pin", region: "eu" }, manifested: { label: "plain", code: " 8-code" } },
      }),
    });
    const registered: Array<[string, string]> = [];
    const secrets = {
      add: (source: string, values: Iterable<string | undefined | null>) => {
        for (const v of values) if (v) registered.push([source, v]);
      },
      redact: (text: string) => text.replaceAll("ñ4-pin", "[redacted]"),
    };
    const logs: string[] = [];
    const r = await loadTools({ ...p.opts, ...noInstall, secrets, log: (_l, m, d) => logs.push(m, ...d.map(String)) });
    expect(r.diagnostics.filter((d) => d.level === "error")).toEqual([]);
    expect(registered).toContainEqual(["plugin-secret", "ñ4-pin"]);
    expect(registered).toContainEqual(["plugin-secret", " 8-code"]);
    expect(registered.map(([, v]) => v).filter((v) => v === "eu" || v === "plain")).toEqual([]);
    expect(logs.join("\n")).toContain("pin is [redacted]");
    expect(logs.join("\n")).not.toContain("ñ4-pin");
  });

  test("a bad value is a diagnostic naming the config field and the file; the factory never runs", async () => {
    const p = tempProject({
      ...typedPlugin("plugins/typed"),
      ".openassistant/tools/clock.ts": toolSource("What time is it"),
      ".openassistant/config.json": JSON.stringify(
        { plugins: ["./plugins/typed"], config: { typed: { region: "mars" } } },
        null,
        2,
      ),
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    const d = r.diagnostics.find((x) => x.id === "typed");
    expect(d?.level).toBe("error");
    expect(d?.message).toContain("config.typed.region");
    expect(d?.message).toContain('"eu"');
    expect(d?.source).toBe(join(p.ws, "config.json"));
    expect(d?.line).toBeGreaterThan(1);
    expect(r.entries.find((e) => e.id === "typed")?.status).toBe("error");
    // One bad plugin never stops the rest.
    expect(r.entries.find((e) => e.id === "clock")?.status).toBe("loaded");
  });
});

import { describe, expect, test } from "bun:test";
import { readdirSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { hasNodeModulesAbove } from "./bare-imports.ts";
import { closest } from "./unknown-keys.ts";
import { createToolRegistry, loadTools } from "./index.ts";
import { SDK_IMPORT, tempProject, toolSource } from "../../test/plugin-fixtures.ts";

const noInstall = { autoInstall: false } as const;
const CALENDAR = resolve(import.meta.dir, "../../../../integrations/calendar");

/** A missing comma after `description` makes Bun report several build errors at once. */
const MISSING_COMMA = `${SDK_IMPORT}
export default defineTool({
  description: "Weather"
  approval: "auto",
  args: z.object({}),
  run: async () => 1,
});
`;

const plugin = (
  dir: string,
  id: string,
  pkg: Record<string, unknown> = {},
  index = `${SDK_IMPORT}\nexport default () => ({ ping: defineTool({ description: "Ping", approval: "auto", args: z.object({}), run: async () => "pong" }) });\n`,
) => ({
  [`${dir}/package.json`]: JSON.stringify({
    name: `oa-plugin-${id}`,
    type: "module",
    openassistant: { entry: "./index.ts" },
    ...pkg,
  }),
  [`${dir}/index.ts`]: index,
});

describe("load error messages", () => {
  test("several syntax errors: the first one with file:line:col and (+N more), no AggregateError; same on reload", async () => {
    const p = tempProject({ ".openassistant/tools/weather.ts": MISSING_COMMA });
    const r = await loadTools({ ...p.opts, ...noInstall });
    const d = r.diagnostics.find((x) => x.id === "weather")!;
    const file = join(p.ws, "tools/weather.ts");
    // The path and position are the diagnostic's source/line/column, printed once, not repeated in the message.
    expect(d.source).toBe(file);
    expect(d.message).toMatch(/^Expected "}" but found "approval" \(\+\d+ more\)$/);
    expect(d.message).not.toContain("AggregateError");
    expect(d.message).not.toContain("errors building");
    expect([d.line, d.column]).toEqual([4, 3]);
    expect(d.hint).toContain("Fix the syntax error");

    writeFileSync(file, toolSource("Weather"));
    const reg = createToolRegistry({ ...p.opts, ...noInstall });
    await reg.ready;
    writeFileSync(file, MISSING_COMMA);
    const s = await reg.reload();
    const again = s.diagnostics.find((x) => x.id === "weather")!;
    expect(again.message).toMatch(
      /^Expected "}" but found "approval" \(\+\d+ more\) \(the previous version stays active/,
    );
    expect([again.line, again.column]).toEqual([4, 3]);
    expect(s.entries.find((e) => e.id === "weather")!.stale).toBe(true);
  });

  test("the cache-busting ?v=N never reaches a diagnostic", async () => {
    const p = tempProject({ ".openassistant/tools/lost.ts": `import "./_missing.ts";\n${toolSource("Lost")}` });
    const reg = createToolRegistry({ ...p.opts, ...noInstall });
    const s = await reg.ready;
    const d = s.diagnostics.find((x) => x.id === "lost")!;
    expect(d.message).toContain(`Cannot find module './_missing.ts' imported from ${join(p.ws, "tools/lost.ts")}`);
    expect(d.hint).toContain('Fix the import of "./_missing.ts"');
    const s2 = await reg.reload();
    expect(JSON.stringify([s.diagnostics, s2.diagnostics])).not.toMatch(/\?v=\d/);
  });
});

describe("typos in ids are reported with a did-you-mean", () => {
  test("config.<id>, tools keys and policy rules that match nothing", async () => {
    const p = tempProject({
      ".openassistant/tools/clock.ts": toolSource("Clock"),
      ".openassistant/tools/notes.ts": `${SDK_IMPORT}
export const add = defineTool({ description: "Add", approval: "required", args: z.object({}), run: async () => 1 });
export const remove = defineTool({ description: "Remove", approval: "required", args: z.object({}), run: async () => 1 });
`,
      ".openassistant/config.jsonc": `{
  "config": {
    "clock": {},
    "clokc": { "zone": "UTC" }
  },
  "tools": { "clok": false, "notes.ad": false, "notes.*": true, "notes": true, "ghost.**": false },
  "policy": { "rules": [
    { "match": "notes.remov", "mode": "deny" },
    { "match": "notes.remove", "mode": "deny" },
    { "match": "notes.**", "mode": "required" }
  ] }
}`,
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    const warnings = r.diagnostics.filter((d) => d.level === "warning" && d.id === "config");
    const config = join(p.ws, "config.jsonc");
    expect(warnings.map((w) => [w.message, w.source, w.line, w.column])).toEqual([
      ['config.clokc: no plugin or tool has the id "clokc", so this is ignored; did you mean "clock"?', config, 4, 5],
      ['tools["clok"]: matches no tool or plugin, so it has no effect; did you mean "clock"?', config, 6, 14],
      ['tools["notes.ad"]: matches no tool or plugin, so it has no effect; did you mean "notes.add"?', config, 6, 29],
      ['tools["ghost.**"]: matches no tool or plugin, so it has no effect', config, 6, 80],
      [
        'policy.rules[0].match "notes.remov": matches no tool, so the rule never applies; did you mean "notes.remove"?',
        config,
        8,
        7,
      ],
    ]);
    expect(warnings[0]!.hint).toContain("known: clock, notes");
    expect(r.diagnostics.filter((d) => d.level === "error")).toEqual([]);
  });

  test("keys under an entry that did not load are not guessed at", async () => {
    const p = tempProject({
      ".openassistant/tools/broken.ts": `export const x = 1;`,
      ".openassistant/config.jsonc": `{ "tools": { "broken.anything": false }, "policy": { "rules": [{ "match": "broken.*", "mode": "deny" }] } }`,
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    expect(r.diagnostics.filter((d) => d.level === "warning")).toEqual([]);
  });

  test("closest() only suggests plausible typos", () => {
    expect(closest("calender", ["calendar", "clock"])).toBe("calendar");
    expect(closest("weather", ["calendar", "clock"])).toBeUndefined();
  });
});

describe("plugin config problems point at the user's config", () => {
  test("configSchema violation: reported at config.<id> in the config file that sets it, manifest as context", async () => {
    const p = tempProject({
      "~/config.jsonc": `{ "config": { "calendar": { "timezone": "UTC" } } }`,
      ".openassistant/config.jsonc": `{\n  "plugins": [${JSON.stringify(CALENDAR)}],\n  "config": {\n    "calendar": { "defaultDurationMinutes": "long" }\n  }\n}`,
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    const d = r.diagnostics.find((x) => x.id === "calendar" && x.level === "error")!;
    expect(d.source).toBe(join(p.ws, "config.jsonc"));
    expect([d.line, d.column]).toEqual([4, 19]);
    expect(d.message).toContain("config.calendar.defaultDurationMinutes: must be integer");
    expect(d.message).toContain(`(configSchema: ${join(CALENDAR, "openassistant.json")})`);
    expect(d.hint).toContain(`Fix config.calendar in ${join(p.ws, "config.jsonc")}`);
  });

  test("a factory rejecting a config value (calendar's bad timezone) says to check the config, not the code", async () => {
    const p = tempProject({
      ".openassistant/config.jsonc": `{\n  "plugins": [${JSON.stringify(CALENDAR)}],\n  "config": {\n    "calendar": { "timezone": "Mars/Olympus" }\n  }\n}`,
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    const d = r.diagnostics.find((x) => x.id === "calendar" && x.level === "error")!;
    expect(d.message).toContain('config.calendar.timezone: "Mars/Olympus" is not an IANA time zone');
    // calendar declares its config with definePlugin: the schema check points at the very key.
    expect(d.hint).toStartWith(`Fix config.calendar.timezone in ${join(p.ws, "config.jsonc")}`);
    expect([d.source, d.line, d.column]).toEqual([join(p.ws, "config.jsonc"), 4, 19]);
    expect(d.hint).not.toContain("Fix the factory");
  });

  test("ZodError from the factory → config hint; an unrelated throw → fix the factory", async () => {
    const p = tempProject({
      ...plugin(
        ".openassistant/plugins/strict",
        "strict",
        {},
        `${SDK_IMPORT}\nexport default (ctx) => { z.object({ retries: z.number() }).parse(ctx.config); return {}; };\n`,
      ),
      ...plugin(
        ".openassistant/plugins/buggy",
        "buggy",
        {},
        `export default () => { throw new TypeError("undefined is not a function"); };\n`,
      ),
      ".openassistant/config.jsonc": `{ "config": { "strict": { "retries": "3" }, "buggy": { "level": 1 } } }`,
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    expect(r.diagnostics.find((d) => d.id === "strict")!.hint).toStartWith(
      `Check config.strict in ${join(p.ws, "config.jsonc")}`,
    );
    const buggy = r.diagnostics.find((d) => d.id === "buggy")!;
    expect(buggy.hint).toStartWith(`Fix the factory in ${join(p.ws, "plugins/buggy/index.ts")}`);
    expect(buggy.message).toBe("plugin factory threw: TypeError: undefined is not a function");
  });
});

describe("installed plugins with a required @openassistant peer", () => {
  test("warns the author to mark it optional, and why; an optional peer is fine", async () => {
    const p = tempProject({
      ...plugin("vendor/required", "required", { peerDependencies: { "@openassistant/sdk": "*" } }),
      ...plugin("vendor/optional", "optional", {
        peerDependencies: { "@openassistant/sdk": "*" },
        peerDependenciesMeta: { "@openassistant/sdk": { optional: true } },
      }),
      ".openassistant/config.jsonc": `{ "plugins": ["./vendor/required", "./vendor/optional"] }`,
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    expect(r.diagnostics.map((d) => `${d.level} ${d.id}`)).toEqual(["warning required"]);
    const d = r.diagnostics[0]!;
    expect(d.source).toBe(join(p.root, "vendor/required/package.json"));
    expect(d.message).toContain("the @openassistant scope belongs to an unrelated project");
    expect(d.hint).toContain(`"peerDependenciesMeta": { "@openassistant/sdk": { "optional": true } }`);
    expect(r.entries.map((e) => `${e.id}:${e.status}`)).toEqual(["required:loaded", "optional:loaded"]);
  });
});

describe("read-only loading (plugins list)", () => {
  const snapshot = (dir: string): string[] =>
    readdirSync(dir, { recursive: true })
      .map(String)
      .sort()
      .map((f) => `${f}:${statSync(join(dir, f)).isDirectory() ? "dir" : statSync(join(dir, f)).size}`);

  test("writes nothing and reports a tool whose packages are not installed instead of importing it", async () => {
    const p = tempProject({
      ".openassistant/tools/clock.ts": toolSource("Clock"),
      ".openassistant/tools/pad.ts": `import leftPad from "left-pad-not-installed-xyz";\n${toolSource("Pad")}`,
      ".openassistant/plugins/cal/package.json": JSON.stringify({
        name: "cal",
        type: "module",
        openassistant: { entry: "./index.ts" },
      }),
      ".openassistant/plugins/cal/index.ts": `${SDK_IMPORT}\nexport default (ctx) => ({ now: defineTool({ description: "Now", approval: "auto", args: z.object({}), run: async () => ctx.dataDir }) });\n`,
    });
    expect(hasNodeModulesAbove(p.ws)).toBe(false);
    const before = snapshot(p.root);
    const r = await loadTools({ ...p.opts, readOnly: true });
    expect(snapshot(p.root)).toEqual(before);
    expect(r.entries.map((e) => `${e.id}:${e.status}`)).toEqual(["clock:loaded", "pad:error", "cal:loaded"]);
    const d = r.diagnostics.find((x) => x.id === "pad")!;
    expect(d.message).toBe("imports left-pad-not-installed-xyz, which is not installed");
    expect(d.hint).toContain("Run `openassistant plugins install`");
  });
});

describe("errors carry the line Bun gives", () => {
  test("defineTool errors and errors thrown at import point at the line in the tool file", async () => {
    const p = tempProject({
      ".openassistant/tools/def.ts": `import { defineTool, z } from "@openassistant/sdk";\n\n\nexport default defineTool({ description: "", approval: "auto", args: z.object({}), run: async () => 1 });\n`,
      ".openassistant/tools/thrower.ts": `import { defineTool } from "@openassistant/sdk";\n\nthrow new Error("boom at import");\n`,
    });
    const r = await loadTools({ ...p.opts, autoInstall: false });
    const def = r.diagnostics.find((d) => d.id === "def")!;
    expect([def.line, def.column]).toEqual([4, 16]);
    expect(def.message).toStartWith('defineTool: "description" must be a non-empty string');
    const thrower = r.diagnostics.find((d) => d.id === "thrower")!;
    expect(thrower.line).toBe(3);
    expect(thrower.message).toBe("boom at import");
  });
});

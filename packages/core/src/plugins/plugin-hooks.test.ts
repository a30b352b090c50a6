/** Hooks come from the loaded plugin modules (issue #29): found, checked, kept on reload, and critical plugins. */
import { describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { createToolRegistry, isCriticalDiagnostic, loadTools } from "./index.ts";
import { tempProject } from "../../test/plugin-fixtures.ts";

const noInstall = { autoInstall: false, declarations: false } as const;

const GUARD = (body = `before: (call) => (call.path.endsWith("delete") ? { deny: "no deletes" } : undefined)`) => `
import { definePlugin, z } from "@openassistant/sdk";
export default definePlugin({
  config: z.object({ limit: z.number().default(10) }),
  hooks: (ctx) => ({ priority: 7, tool: { ${body} }, run: { end: () => undefined } }),
});
`;

const FOLDER_PLUGIN = `
import { definePlugin, defineTool, z } from "@openassistant/sdk";
export default definePlugin({
  tools: () => ({ ping: defineTool({ description: "Ping", approval: "auto", args: z.object({}), run: async () => "pong" }) }),
  hooks: { tool: { after: () => undefined } },
});
`;

const folder = (dir: string, id: string, source: string) => ({
  [`${dir}/package.json`]: JSON.stringify({ name: id, type: "module", openassistant: { entry: "./index.ts" } }),
  [`${dir}/index.ts`]: source,
});

describe("plugin hooks at load", () => {
  test("a dropped .ts file with only hooks and a folder plugin with tools and hooks both register them, in load order", async () => {
    const p = tempProject({
      ".openassistant/tools/guard.ts": GUARD(),
      ...folder(".openassistant/plugins/audit", "audit", FOLDER_PLUGIN),
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    expect(r.diagnostics.filter((d) => d.level === "error")).toEqual([]);
    expect(r.hooks.map((h) => h.pluginId).sort()).toEqual(["audit", "guard"]);
    const guard = r.entries.find((e) => e.id === "guard")!;
    expect(guard.status).toBe("loaded");
    expect(guard.tools).toEqual([]);
    expect(guard.hooks).toEqual({ priority: 7, events: ["tool.before", "run.end"] });
    expect(r.entries.find((e) => e.id === "audit")!.hooks).toEqual({ priority: 0, events: ["tool.after"] });
  });

  test("hooks that are not hooks are an error naming the file; the other plugins still load", async () => {
    const p = tempProject({
      ".openassistant/tools/guard.ts": GUARD(`befor: () => undefined`),
      ...folder(".openassistant/plugins/audit", "audit", FOLDER_PLUGIN),
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    const error = r.diagnostics.find((d) => d.id === "guard")!;
    expect(error.message).toMatch(/hooks\.tool\.befor is not a hook/);
    expect(error.source).toContain("guard.ts");
    expect(r.hooks.map((h) => h.pluginId)).toEqual(["audit"]);
  });

  test("a critical plugin that does not load, or is missing, is an error that stops the gateway", async () => {
    const p = tempProject({
      ".openassistant/tools/guard.ts": `throw new Error("broken on purpose");`,
      ".openassistant/config.jsonc": JSON.stringify({
        config: { guard: { critical: true }, firewall: { critical: true } },
      }),
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    const critical = r.diagnostics.filter(isCriticalDiagnostic);
    expect(critical.map((d) => d.message)).toEqual([
      'critical plugin "guard" did not load: the gateway does not start without it (config.guard.critical is true)',
      'critical plugin "firewall" was not found: the gateway does not start without it (config.firewall.critical is true)',
    ]);
    expect(critical[0]!.source).toContain("config.jsonc");
  });

  test("a critical plugin that loads passes, and its config never sees `critical`", async () => {
    const p = tempProject({
      ".openassistant/tools/guard.ts": `
import { definePlugin, z } from "@openassistant/sdk";
export default definePlugin({ config: z.strictObject({ limit: z.number() }), hooks: { tool: { before: () => undefined } } });
`,
      ".openassistant/config.jsonc": JSON.stringify({ config: { guard: { critical: true, limit: 3 } } }),
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    expect(r.diagnostics.filter((d) => d.level === "error")).toEqual([]);
    expect(r.entries.find((e) => e.id === "guard")!.critical).toBe(true);
  });

  test("a reload that breaks a plugin keeps its previous hooks (a firewall never disappears silently)", async () => {
    const p = tempProject({
      ".openassistant/tools/guard.ts": GUARD(),
      ".openassistant/config.jsonc": JSON.stringify({ config: { guard: { critical: true } } }),
    });
    const registry = createToolRegistry({ ...p.opts, ...noInstall });
    const first = await registry.ready;
    const before = first.hooks.find((h) => h.pluginId === "guard")!.hooks;
    p.write(".openassistant/tools/guard.ts", GUARD(`before: () => { throw new Error("x") }, after: 3`));
    const next = await registry.reload();
    expect(next.hooks.find((h) => h.pluginId === "guard")!.hooks).toBe(before);
    expect(next.entries.find((e) => e.id === "guard")!.stale).toBe(true);
    expect(next.diagnostics.find((d) => d.id === "guard")!.message).toMatch(
      /hooks\.tool\.after must be a function.*previous version stays active/,
    );
    expect(next.diagnostics.filter(isCriticalDiagnostic)).toEqual([]);
  });

  test("config.<id>.hookTimeoutMs sets the plugin's hook time limit over its own; the plugin's config never sees it", async () => {
    const p = tempProject({
      ".openassistant/tools/guard.ts": `
import { definePlugin, z } from "@openassistant/sdk";
export default definePlugin({ config: z.strictObject({}), hooks: { timeoutMs: 5000, tool: { before: () => undefined } } });
`,
      ".openassistant/config.jsonc": JSON.stringify({ config: { guard: { hookTimeoutMs: 250 } } }),
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    expect(r.diagnostics.filter((d) => d.level === "error")).toEqual([]);
    expect(r.hooks.find((h) => h.pluginId === "guard")!.hooks.timeoutMs).toBe(250);
  });

  test("a reload after which a critical plugin is gone keeps the hooks it had, and says so", async () => {
    const p = tempProject({
      ".openassistant/tools/guard.ts": GUARD(),
      ".openassistant/config.jsonc": JSON.stringify({ config: { guard: { critical: true } } }),
    });
    const registry = createToolRegistry({ ...p.opts, ...noInstall });
    const before = (await registry.ready).hooks.find((h) => h.pluginId === "guard")!.hooks;
    rmSync(join(p.ws, "tools", "guard.ts"));
    const next = await registry.reload();
    expect(next.hooks.find((h) => h.pluginId === "guard")?.hooks).toBe(before);
    expect(next.diagnostics.filter(isCriticalDiagnostic).map((d) => d.message)).toEqual([
      'critical plugin "guard" was not found: the gateway does not start without it (config.guard.critical is true); its hooks from before this reload stay active until it loads again',
    ]);
  });
});

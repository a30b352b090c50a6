import { describe, expect, test } from "bun:test";
import { createToolRegistry, loadTools } from "./index.ts";
import { SDK_IMPORT, tempProject, toolSource } from "../../test/plugin-fixtures.ts";
import { DEFAULT_LOAD_TIMEOUT_MS } from "./time-limit.ts";

const fast = { autoInstall: false, loadTimeoutMs: 300 } as const;
const plugin = (dir: string, index: string) => ({
  [`${dir}/package.json`]: JSON.stringify({
    name: dir.split("/").pop(),
    type: "module",
    openassistant: { entry: "./index.ts" },
  }),
  [`${dir}/index.ts`]: index,
});

describe("a tool or plugin that never finishes loading is skipped, the rest loads", () => {
  test("the default limit is 10 s", () => {
    expect(DEFAULT_LOAD_TIMEOUT_MS).toBe(10_000);
  });

  test("plugin factory that never resolves, a tool file whose top-level await never settles, a tool-file factory that hangs", async () => {
    const p = tempProject({
      ".openassistant/tools/good.ts": toolSource("good"),
      ".openassistant/tools/tla.ts": `${SDK_IMPORT}\nawait new Promise(() => {});\nexport default defineTool({ description: "x", approval: "auto", args: z.object({}), run: async () => 1 });`,
      ".openassistant/tools/factory.ts": `export default () => new Promise(() => {});`,
      ...plugin(".openassistant/plugins/hang", `export default () => new Promise(() => {});`),
      ...plugin(
        ".openassistant/plugins/slowish",
        `${SDK_IMPORT}\nexport default async () => { await Bun.sleep(20); return { ok: defineTool({ description: "ok", approval: "auto", args: z.object({}), run: async () => 1 }) }; };`,
      ),
    });
    const r = await loadTools({ ...p.opts, ...fast });
    const status = Object.fromEntries(r.entries.map((e) => [e.id, e.status]));
    expect(status).toEqual({ good: "loaded", tla: "error", factory: "error", hang: "error", slowish: "loaded" });
    const tla = r.diagnostics.find((d) => d.id === "tla")!;
    expect(tla.source).toBe(`${p.ws}/tools/tla.ts`);
    expect(tla.message).toContain("did not finish within 0.30 s");
    expect(tla.message).toContain("top-level await");
    expect(tla.hint).toContain("tla.ts");
    const hang = r.diagnostics.find((d) => d.id === "hang")!;
    expect(hang.source).toBe(`${p.ws}/plugins/hang/index.ts`);
    expect(hang.message).toContain("plugin factory did not return within 0.30 s");
    expect(hang.hint).toContain("inside run()");
    expect(r.diagnostics.find((d) => d.id === "factory")!.message).toContain("did not return");
  });

  test("a hung factory on reload keeps the previous version; later reloads still work and pick up the fix", async () => {
    const working = `${SDK_IMPORT}\nexport default () => ({ ping: defineTool({ description: "v1", approval: "auto", args: z.object({}), run: async () => "v1" }) });`;
    const p = tempProject({
      ".openassistant/tools/good.ts": toolSource("good"),
      ...plugin(".openassistant/plugins/svc", working),
    });
    const reg = createToolRegistry({ ...p.opts, ...fast });
    expect((await reg.ready).entries.find((e) => e.id === "svc")!.status).toBe("loaded");

    p.write(".openassistant/plugins/svc/index.ts", `export default () => new Promise(() => {});\n// v2`);
    const hung = await reg.reload();
    const svc = hung.entries.find((e) => e.id === "svc")!;
    expect(svc.status).toBe("loaded");
    expect(svc.stale).toBe(true);
    expect(hung.diagnostics.find((d) => d.id === "svc")!.message).toContain("previous version stays active");

    p.write(".openassistant/plugins/svc/index.ts", working.replace(/v1/g, "v3"));
    const fixed = await reg.reload();
    expect(fixed.entries.find((e) => e.id === "svc")!.tools[0]!.description).toBe("v3");
    expect(fixed.diagnostics).toEqual([]);
  });
});

describe("a bundled source with its own limit (an OpenAPI spec's first parse)", () => {
  test("loads past the factory limit within its own; one without waits only the factory limit", async () => {
    const p = tempProject({});
    const { defineTool, z } = await import("@openassistant/sdk");
    const ok = defineTool({ description: "ok", approval: "auto", args: z.object({}), run: async () => 1 });
    let release!: () => void;
    const parsed = new Promise<void>((r) => (release = r));
    const r = await loadTools({
      ...p.opts,
      ...fast,
      bundled: [
        // Settles only after the 300 ms factory limit has passed for the other one.
        { id: "slowspec", timeoutMs: 60_000, tools: async () => (await parsed, { op: ok }) },
        { id: "hang", tools: () => new Promise(() => {}) },
        {
          id: "waiter",
          tools: async () => {
            await Bun.sleep(400);
            release();
            return { ok };
          },
        },
      ],
    });
    expect(Object.keys(r.tree).sort()).toEqual(["slowspec"]);
    expect(r.diagnostics.filter((d) => d.level === "error").map((d) => d.message)).toEqual([
      expect.stringContaining("did not return within 0.30 s"),
      expect.stringContaining("did not return within 0.30 s"),
    ]);
  });
});

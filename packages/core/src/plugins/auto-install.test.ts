import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ensureWorkspaceDependencies, loadTools } from "./index.ts";
import { startRecordingRegistry } from "@openassistant/testkit/recording-registry.ts";
import { jsonFromFreshProcess } from "@openassistant/testkit/fresh-process.ts";
import { SDK_IMPORT, tempProject, toolSource } from "../../test/plugin-fixtures.ts";

const registry = startRecordingRegistry();
afterAll(() => registry.stop());
const registryEnv = { BUN_CONFIG_REGISTRY: registry.url, NPM_CONFIG_REGISTRY: registry.url };

describe("auto-install", () => {
  test("without dependencies: package.json is created (no @openassistant dependency), nothing is installed", async () => {
    const p = tempProject({ ".openassistant/tools/clock.ts": toolSource("clock") }, registryEnv);
    const r = await ensureWorkspaceDependencies(p.ws, { env: p.opts.env });
    expect(r).toEqual({ ran: false, diagnostics: [], toolFailures: new Map(), added: [], installed: [] });
    const pkg = JSON.parse(readFileSync(join(p.ws, "package.json"), "utf8"));
    expect(pkg).toEqual({
      name: "openassistant-workspace",
      private: true,
      type: "module",
      workspaces: ["plugins/*"],
      dependencies: {},
    });
    expect(readFileSync(join(p.ws, ".gitignore"), "utf8")).toContain("node_modules/");
    const loaded = await loadTools(p.opts);
    expect(loaded.entries[0]!.status).toBe("loaded");
    expect(existsSync(join(p.ws, "bun.lock"))).toBe(false);
  });

  test("an empty .openassistant/ gets no package.json", async () => {
    const p = tempProject();
    expect((await ensureWorkspaceDependencies(p.ws)).ran).toBe(false);
    expect(existsSync(join(p.ws, "package.json"))).toBe(false);
  });

  test("with dependencies (tool + workspace plugin): installs once before importing; @openassistant/* never reaches the registry", async () => {
    const p = tempProject(
      {
        "vendor/shout/package.json": JSON.stringify({
          name: "shout",
          version: "1.0.0",
          type: "module",
          main: "index.js",
        }),
        "vendor/shout/index.js": `export const shout = (s) => s.toUpperCase() + "!";`,
        ".openassistant/package.json": JSON.stringify({
          private: true,
          type: "module",
          workspaces: ["plugins/*"],
          dependencies: { shout: "file:../vendor/shout", "@openassistant/sdk": "^0.1.0" },
        }),
        ".openassistant/tools/yell.ts": `${SDK_IMPORT}\nimport { shout } from "shout";\nexport default defineTool({ description: "yell", approval: "auto", args: z.object({ s: z.string() }), run: async ({ s }) => shout(s) });`,
        ".openassistant/plugins/echo/package.json": JSON.stringify({
          name: "oa-echo",
          type: "module",
          dependencies: { shout: "file:../../../vendor/shout" },
          // `ui` is in no list the gateway knows: only the plugin's own package.json names it.
          peerDependencies: {
            "@openassistant/sdk": "*",
            "@openassistant/core": "^0.5.0",
            "@openassistant/ui": "^0.5.0",
          },
          openassistant: { entry: "./index.ts" },
        }),
        ".openassistant/plugins/echo/index.ts": `${SDK_IMPORT}\nimport { shout } from "shout";\nexport const tools = { say: defineTool({ description: "say", approval: "auto", args: z.object({ s: z.string() }), run: async ({ s }) => shout(s) }) };`,
      },
      registryEnv,
    );
    const r = await loadTools(p.opts);
    expect(r.diagnostics.filter((d) => d.level === "error")).toEqual([]);
    const warn = r.diagnostics.find((d) => d.id === "install")!;
    expect(warn.message).toContain("removed @openassistant/sdk");
    expect(r.entries.map((e) => `${e.id}:${e.status}`)).toEqual(["yell:loaded", "oa_echo:loaded"]);
    const pkg = JSON.parse(readFileSync(join(p.ws, "package.json"), "utf8"));
    expect(pkg.dependencies).toEqual({ shout: "file:../vendor/shout" });
    expect(pkg.overrides["@openassistant/sdk"]).toBe("file:./.oa-stub");
    expect(pkg.overrides["@openassistant/core"]).toBe("file:./.oa-stub");
    expect(pkg.overrides["@openassistant/ui"]).toBe("file:./.oa-stub");
    expect(existsSync(join(p.ws, "bun.lock"))).toBe(true);
    expect(registry.requests.filter((r) => r.includes("@openassistant"))).toEqual([]);
    expect(registry.requests).toEqual([]);
    // Installed now: a second pass does not run bun install.
    expect((await ensureWorkspaceDependencies(p.ws, { env: p.opts.env })).ran).toBe(false);
  }, 30_000);

  test("a workspace plugin depending on @openassistant/sdk needs no install: the gateway provides it, on every pass", async () => {
    const p = tempProject(
      {
        ".openassistant/plugins/echo/package.json": JSON.stringify({
          name: "oa-echo",
          type: "module",
          dependencies: { "@openassistant/sdk": "^0.1.0" },
          openassistant: { entry: "./index.ts" },
        }),
        ".openassistant/plugins/echo/index.ts": `${SDK_IMPORT}\nexport const tools = { say: defineTool({ description: "say", approval: "auto", args: z.object({ s: z.string() }), run: async ({ s }) => s }) };`,
      },
      registryEnv,
    );
    const before = registry.requests.length;
    for (let pass = 0; pass < 2; pass++)
      expect((await ensureWorkspaceDependencies(p.ws, { env: p.opts.env })).ran).toBe(false);
    const r = await loadTools(p.opts);
    expect(r.entries.map((e) => `${e.id}:${e.status}`)).toEqual(["oa_echo:loaded"]);
    expect(registry.requests.slice(before)).toEqual([]);
  }, 30_000);

  test("a failing install is reported with bun's stderr tail; tools without the dependency still load", async () => {
    const p = tempProject(
      {
        ".openassistant/package.json": JSON.stringify({
          private: true,
          dependencies: { "oa-missing-pkg": "file:../nowhere/oa-missing-pkg" },
        }),
        ".openassistant/tools/ok.ts": toolSource("ok"),
      },
      registryEnv,
    );
    const r = await loadTools(p.opts);
    const d = r.diagnostics.find((x) => x.id === "install" && x.level === "error")!;
    expect(d.message).toContain("bun install failed");
    expect(d.message).toContain("oa-missing-pkg");
    expect(d.hint).toContain(p.ws);
    expect(r.entries[0]!.status).toBe("loaded");
    expect(existsSync(join(p.ws, ".install.lock"))).toBe(false);
  }, 20_000);

  test("an import of an unresolvable @openassistant/* package from a tool never triggers Bun's runtime auto-install", async () => {
    const p = tempProject({
      ".openassistant/tools/sneaky.ts": `import x from "@openassistant/utils";\nexport default x;`,
      ".openassistant/tools/ok.ts": toolSource("ok"),
    });
    const script = `import { loadTools } from ${JSON.stringify(join(import.meta.dir, "index.ts"))};
const r = await loadTools(${JSON.stringify({ ...p.opts, log: undefined, autoInstall: false })});
console.log(JSON.stringify(r.entries.map((e) => e.id + ":" + e.status)));`;
    const entries = await jsonFromFreshProcess(script, { cwd: p.root, env: { ...process.env, ...registryEnv } });
    expect(entries).toEqual(["ok:loaded", "sneaky:error"]);
    expect(registry.requests.filter((r) => r.includes("@openassistant"))).toEqual([]);
  }, 20_000);
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startNpmRegistry, type NpmRegistry } from "@openassistant/testkit/npm-registry.ts";
import { ensureWorkspaceDependencies, loadTools } from "./index.ts";
import { installNpmPlugins } from "./npm-plugins.ts";
import { SDK_IMPORT, tempProject, toolSource } from "../../test/plugin-fixtures.ts";

// A real `bun add` against a local npm registry serving tarballs made with `bun pm pack`.
let registry: NpmRegistry;
beforeAll(async () => {
  registry = await startNpmRegistry([
    {
      name: "oa-tiny-pad",
      version: "1.2.3",
      files: {
        "index.js": `export default (s, n) => String(s).padStart(n, "0");`,
        "upper.js": `export const upper = (s) => s.toUpperCase();`,
      },
    },
    { name: "oa-tiny-pad", version: "1.1.0", files: { "index.js": `export default () => "old";` } },
    {
      name: "oa-npm-plugin",
      version: "2.0.0",
      files: {
        "index.js": `import { defineTool, z } from "@openassistant/sdk";\nexport const tools = { hello: defineTool({ description: "hello", approval: "auto", args: z.object({}), run: async () => "hi" }) };`,
      },
      packageJson: { peerDependencies: { "@openassistant/sdk": "*" }, openassistant: { entry: "./index.js" } },
    },
  ]);
});
afterAll(() => registry.stop());
const env = () => ({ BUN_CONFIG_REGISTRY: registry.url, NPM_CONFIG_REGISTRY: registry.url });
const padTool = (name: string, pkg = "oa-tiny-pad") =>
  `${SDK_IMPORT}\nimport pad from "${pkg}";\nexport default defineTool({ description: "${name}", approval: "auto", args: z.object({ n: z.number() }), run: async ({ n }) => pad(n, 4) });\n`;

describe("auto-install of tools' undeclared imports", () => {
  test("an undeclared import is added with its exact version, installed with bun.lock written, and the tool works", async () => {
    const p = tempProject(
      {
        ".openassistant/tools/pad.ts": padTool("pad"),
        ".openassistant/tools/shout.ts": `${SDK_IMPORT}\nimport { upper } from "oa-tiny-pad/upper.js";\nexport default defineTool({ description: "shout", approval: "auto", args: z.object({}), run: async () => upper("a") });\n`,
        ".openassistant/tools/plain.ts": toolSource("plain"),
      },
      env(),
    );
    const lines: string[] = [];
    const r = await loadTools({ ...p.opts, installProgress: (l) => lines.push(l) });
    expect(r.diagnostics.filter((d) => d.level === "error")).toEqual([]);
    expect(r.entries.map((e) => `${e.id}:${e.status}`)).toEqual(["pad:loaded", "plain:loaded", "shout:loaded"]);
    const pkg = JSON.parse(readFileSync(join(p.ws, "package.json"), "utf8"));
    expect(pkg.dependencies).toEqual({ "oa-tiny-pad": "1.2.3" });
    expect(existsSync(join(p.ws, "bun.lock"))).toBe(true);
    expect(lines[0]).toContain("Installing oa-tiny-pad (imported by tools/pad.ts, tools/shout.ts)");
    expect(lines).toContain("  added oa-tiny-pad@1.2.3");
    const pad = (r.tree as Record<string, { run: (a: unknown) => Promise<unknown> }>).pad!;
    expect(await pad.run({ n: 7 })).toBe("0007");
    expect(registry.requests.filter((q) => q.includes("@openassistant"))).toEqual([]);
    // Declared and installed now: nothing runs the second time.
    expect((await ensureWorkspaceDependencies(p.ws, { env: p.opts.env })).ran).toBe(false);
  }, 60_000);

  test("unknown package, @openassistant/* import, bad version: one diagnostic per failing tool, the rest loads", async () => {
    const p = tempProject(
      {
        ".openassistant/tools/ok.ts": toolSource("ok"),
        ".openassistant/tools/good.ts": padTool("good"),
        ".openassistant/tools/typo.ts": padTool("typo", "oa-no-such-pkg"),
        ".openassistant/tools/sneaky.ts": padTool("sneaky", "@openassistant/utils"),
      },
      env(),
    );
    const r = await loadTools(p.opts);
    expect(r.entries.map((e) => `${e.id}:${e.status}`)).toEqual([
      "good:loaded",
      "ok:loaded",
      "sneaky:error",
      "typo:error",
    ]);
    const errs = r.diagnostics.filter((d) => d.level === "error");
    expect(errs.map((d) => d.id).sort()).toEqual(["sneaky", "typo"]);
    expect(errs.find((d) => d.id === "typo")!.message).toBe(
      'imports oa-no-such-pkg, which could not be installed: "oa-no-such-pkg" is not on the npm registry (404)',
    );
    expect(errs.find((d) => d.id === "typo")!.hint).toContain("openassistant plugins install");
    expect(errs.find((d) => d.id === "sneaky")!.message).toContain("never installed");
    expect(registry.requests.filter((q) => q.includes("@openassistant"))).toEqual([]);
    expect(JSON.parse(readFileSync(join(p.ws, "package.json"), "utf8")).dependencies).toEqual({
      "oa-tiny-pad": "1.2.3",
    });

    // A declared version that does not exist fails its package.json install and the tools using it.
    const q = tempProject(
      {
        ".openassistant/package.json": JSON.stringify({ private: true, dependencies: { "oa-tiny-pad": "9.9.9" } }),
        ".openassistant/tools/pad.ts": padTool("pad"),
        ".openassistant/tools/ok.ts": toolSource("ok"),
      },
      env(),
    );
    const r2 = await loadTools(q.opts);
    expect(r2.entries.map((e) => `${e.id}:${e.status}`)).toEqual(["ok:loaded", "pad:error"]);
    const padErr = r2.diagnostics.find((d) => d.id === "pad")!;
    expect(padErr.message).toContain("imports oa-tiny-pad, which could not be installed");
    expect(padErr.message).toContain("9.9.9");
    expect(r2.diagnostics.filter((d) => d.id === "pad")).toHaveLength(1);
  }, 60_000);

  test("offline (registry unreachable): the tool fails with one clear diagnostic, the others load", async () => {
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const url = `http://127.0.0.1:${closed.port}/`;
    closed.stop(true);
    const p = tempProject(
      { ".openassistant/tools/pad.ts": padTool("pad"), ".openassistant/tools/ok.ts": toolSource("ok") },
      { BUN_CONFIG_REGISTRY: url, NPM_CONFIG_REGISTRY: url },
    );
    const r = await loadTools({ ...p.opts, installTimeoutMs: 30_000 });
    expect(r.entries.map((e) => `${e.id}:${e.status}`)).toEqual(["ok:loaded", "pad:error"]);
    const d = r.diagnostics.filter((x) => x.id === "pad");
    expect(d).toHaveLength(1);
    expect(d[0]!.message).toContain(
      "imports oa-tiny-pad, which could not be installed: the npm registry could not be reached",
    );
  }, 60_000);

  test("config.plugins npm specifiers are installed into .openassistant/ and then load; bad ones fail alone", async () => {
    const p = tempProject(
      {
        ".openassistant/config.json": JSON.stringify({
          plugins: ["oa-npm-plugin@^2", "oa-missing-plugin", "@openassistant/core"],
        }),
      },
      env(),
    );
    const lines: string[] = [];
    const r = await installNpmPlugins(
      p.ws,
      ["oa-npm-plugin@^2", "oa-missing-plugin", "@openassistant/core", "./local"],
      {
        projectRoot: p.root,
        homeDir: p.home,
        configFile: join(p.ws, "config.json"),
        env: p.opts.env,
        progress: (l) => lines.push(l),
      },
    );
    expect(r.installed).toEqual(["oa-npm-plugin@2.0.0"]);
    expect(r.diagnostics).toHaveLength(2);
    expect(r.diagnostics[1]!.message).toContain('"oa-missing-plugin" is not on the npm registry (404)');
    expect(r.diagnostics[0]!.message).toContain("never installed");
    expect(JSON.parse(readFileSync(join(p.ws, "package.json"), "utf8")).dependencies).toEqual({
      "oa-npm-plugin": "2.0.0",
    });
    expect(lines[0]).toContain("Installing plugin oa-npm-plugin@^2");
    expect(registry.requests.filter((q) => q.includes("@openassistant"))).toEqual([]);
    const loaded = await loadTools({ ...p.opts, autoInstall: false });
    expect(loaded.entries.find((e) => e.id === "oa_npm_plugin")?.status).toBe("loaded");
  }, 60_000);
});

import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { z } from "zod";
import { echoCloses, echoKind } from "../../test/source-kinds/echo/kind.ts";
import { tempProject, toolSource } from "../../test/plugin-fixtures.ts";
import { loadConfig } from "../config/load.ts";
import { configSchema } from "../config/schema.ts";
import { indexToolTree } from "../tools/flatten.ts";
import { loadTools } from "../plugins/index.ts";
import { closeSourceKinds, sourceKindsShape } from "./kind.ts";
import { SOURCE_KINDS } from "./kinds.ts";
import { openApiKind } from "./openapi/kind.ts";

// Real OpenAPI spec reads and tool imports: seconds on a busy machine.
setDefaultTimeout(30_000);

const PETS_SPEC = join(import.meta.dir, "openapi/fixtures/pets.json");
/** The real kinds and, registered after them, the test-only echo kind: one line. */
const KINDS = [...SOURCE_KINDS, echoKind] as const;

/** A project whose config names an OpenAPI spec, plus an `echo` section parsed by the composed schema. */
async function projectWithEcho(echo: unknown, openapi: Record<string, { spec: string }>) {
  const p = tempProject({
    "specs/pets.json": await Bun.file(PETS_SPEC).text(),
    ".openassistant/config.json": JSON.stringify({ openapi }),
  });
  const loaded = await loadConfig({ cwd: p.root, env: p.opts.env ?? {}, homeDir: p.home });
  const withEcho = z.strictObject({ ...configSchema.shape, ...sourceKindsShape(KINDS) });
  const config = withEcho.parse({ ...loaded.config, echo });
  return { p, opts: { ...p.opts, autoInstall: false, config: { ...loaded, config }, kinds: KINDS } };
}

describe("source kinds", () => {
  test("the config schema takes each registered kind's schema at its key", () => {
    const shape: Readonly<Record<string, unknown>> = configSchema.shape;
    for (const kind of SOURCE_KINDS) if (kind.schema) expect(shape[kind.key]).toBe(kind.schema);
    // Kinds without a config section (workspace files, the host's own trees) add no key.
    expect(Object.keys(sourceKindsShape(KINDS))).toEqual(["plugins", "openapi", "mcp", "workspace", "echo"]);
  });

  test("a test-only kind registered next to the real kinds loads its tools beside an OpenAPI spec's", async () => {
    const { opts } = await projectWithEcho({ hello: { words: ["hi", "bye"] } }, { pets: { spec: "specs/pets.json" } });
    const r = await loadTools(opts);
    const tools = indexToolTree(r.tree);
    expect(await tools.get("hello.hi")?.run({}, {} as never)).toBe("hi");
    expect(tools.has("hello.bye")).toBe(true);
    expect(tools.has("pets.pets.list")).toBe(true);
    expect(r.entries.find((e) => e.id === "hello")).toMatchObject({
      status: "loaded",
      origin: "bundled",
      configPath: ["echo", "hello"],
    });
  });

  test("a kind registered later does not take a name an earlier kind has; a kind outside the registry is named by its config key", async () => {
    const { p, opts } = await projectWithEcho({ pets: { words: ["hi"] } }, { pets: { spec: "specs/pets.json" } });
    const r = await loadTools(opts);
    expect(indexToolTree(r.tree).has("pets.hi")).toBe(false);
    const refused = r.diagnostics.filter((d) => d.level === "error" && d.id === "pets").map((d) => d.message);
    expect(refused).toEqual([
      `config.echo source echo.pets (echo:pets) is not loaded: tools.pets already belongs to OpenAPI spec openapi.pets (${join(p.root, "specs/pets.json")}) (it comes first (docs/plugins.md, "Who owns a name")); a source never takes over another's name`,
    ]);
  });

  test("a failing entry of a kind is an error with its own message; the other entries load", async () => {
    const { opts } = await projectWithEcho(
      { down: { words: ["hi"], fail: "echo server is down" }, up: { words: ["hi"] } },
      {},
    );
    const r = await loadTools(opts);
    expect(r.diagnostics.filter((d) => d.id === "down").map((d) => [d.level, d.message, d.hint])).toEqual([
      ["error", "echo server is down", "Check echo.down in the config; the other tools still load."],
    ]);
    expect(indexToolTree(r.tree).has("up.hi")).toBe(true);
  });

  test("closing the kinds closes each kind that keeps something open, even when another's close fails, then reports the failure", async () => {
    const before = echoCloses.count;
    const failing = { ...echoKind, key: "broken", close: async () => Promise.reject(new Error("cannot close")) };
    await expect(closeSourceKinds([failing, echoKind])).rejects.toThrow("1 tool source kind(s) did not close");
    expect(echoCloses.count).toBe(before + 1);
  });

  test("every kind of tool source is one registry line, in the order plugins list shows them", () => {
    expect(SOURCE_KINDS.map((k) => k.key)).toEqual([
      "workspace files",
      "plugins",
      "openapi",
      "mcp",
      "workspace",
      "built-in trees",
    ]);
  });

  test("the loader finds only what the kinds it is given find: workspace files, their watched folders and all", async () => {
    const p = tempProject({
      "specs/pets.json": await Bun.file(PETS_SPEC).text(),
      ".openassistant/tools/clock.ts": toolSource("What time is it"),
      ".openassistant/config.json": JSON.stringify({ openapi: { pets: { spec: "specs/pets.json" } } }),
    });
    const opts = { ...p.opts, autoInstall: false, declarations: false };
    const all = await loadTools(opts);
    expect(all.entries.map((e) => e.id)).toEqual(["clock", "pets"]);
    expect(all.watchDirs).toContain(join(p.ws, "tools"));
    const onlySpecs = await loadTools({ ...opts, kinds: [openApiKind] });
    expect(onlySpecs.entries.map((e) => e.id)).toEqual(["pets"]);
    expect(onlySpecs.watchDirs).toEqual([]);
  });

  test("the built-in workspace tools mount for a host only, unless config.workspace.enabled is false", async () => {
    const p = tempProject();
    const opts = { ...p.opts, autoInstall: false, declarations: false };
    expect((await loadTools(opts)).entries).toEqual([]);
    const hosted = await loadTools({ ...opts, host: {} });
    expect(hosted.entries.map((e) => [e.id, e.origin, e.source])).toEqual([
      ["workspace", "bundled", "bundled:workspace"],
    ]);
    expect(indexToolTree(hosted.tree).has("workspace.writeTool")).toBe(true);
    p.write(".openassistant/config.json", JSON.stringify({ workspace: { enabled: false } }));
    expect((await loadTools({ ...opts, host: {} })).entries).toEqual([]);
  });

  test("a file named like a built-in workspace tool is refused: the host's kind comes first", async () => {
    const p = tempProject({ ".openassistant/tools/workspace.ts": toolSource("mine") });
    const r = await loadTools({ ...p.opts, autoInstall: false, declarations: false, host: {} });
    expect(r.entries.map((e) => [e.id, e.origin])).toEqual([["workspace", "bundled"]]);
    expect(r.diagnostics.filter((d) => d.level === "error").map((d) => d.message)).toEqual([
      `tool file ${join(p.ws, "tools/workspace.ts")} is not loaded: tools.workspace already belongs to the built-in tools.workspace (it comes first (docs/plugins.md, "Who owns a name")); a source never takes over another's name`,
    ]);
  });
});

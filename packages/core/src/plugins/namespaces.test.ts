import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { defineTool, type ToolTree, z } from "@openassistant/sdk";
import { startMcpHttpServer, type TestMcpHttpServer } from "@openassistant/testkit/mcp/http-server.ts";
import { SDK_IMPORT, tempProject, toolSource } from "../../test/plugin-fixtures.ts";
import { closeMcpConnections } from "../sources/mcp/index.ts";
import { indexToolTree } from "../tools/flatten.ts";
import { createToolRegistry, loadTools } from "./index.ts";
import type { LoadResult } from "./types.ts";

// Real MCP connections and plugin imports: seconds on a busy machine.
setDefaultTimeout(30_000);

const PETS_SPEC = join(import.meta.dir, "../sources/openapi/fixtures/pets.json");
const noInstall = { autoInstall: false } as const;

let mcp: TestMcpHttpServer | undefined;
afterAll(async () => {
  await closeMcpConnections();
  await mcp?.close();
});

/** A real MCP server over HTTP with one tool, `ping`. */
async function mcpServer(): Promise<TestMcpHttpServer> {
  mcp ??= await startMcpHttpServer((s) => {
    s.registerTool("ping", { description: "MCP ping", inputSchema: {} }, async () => ({
      content: [{ type: "text", text: "pong from mcp" }],
    }));
  });
  return mcp;
}

/** A folder plugin with the given id whose one tool says where it comes from. */
function pluginDir(dir: string, id: string, description = `plugin ${id}`): Record<string, string> {
  return {
    [`${dir}/package.json`]: JSON.stringify({
      name: `oa-${id}-x`,
      type: "module",
      openassistant: { entry: "./index.ts" },
    }),
    [`${dir}/openassistant.json`]: JSON.stringify({ id }),
    [`${dir}/index.ts`]: `${SDK_IMPORT}
export default () => ({ ping: defineTool({ description: ${JSON.stringify(description)}, approval: "auto", args: z.object({}), run: async () => ${JSON.stringify(description)} }) });`,
  };
}

const builtin = (id: string): { id: string; tools: ToolTree } => ({
  id,
  tools: {
    listTools: defineTool({ description: "the built-in", approval: "auto", args: z.object({}), run: async () => [] }),
  },
});

const errorsOf = (r: LoadResult, id: string) => r.diagnostics.filter((d) => d.level === "error" && d.id === id);
const descriptionsUnder = (r: LoadResult, id: string) =>
  [...indexToolTree(r.tree).entries()]
    .filter(([p]) => p === id || p.startsWith(`${id}.`))
    .map(([, t]) => t.description);

describe("no source takes over another's name", () => {
  test("the built-in tools.workspace keeps its name against a tool file, a folder plugin, an npm-style path plugin, an MCP server and an OpenAPI spec", async () => {
    const server = await mcpServer();
    const p = tempProject({
      ".openassistant/tools/workspace.ts": toolSource("file workspace"),
      "~/tools/workspace.ts": toolSource("global file workspace"),
      ...pluginDir(".openassistant/plugins/ws", "workspace"),
      ...pluginDir("elsewhere/ws", "workspace"),
      "specs/pets.json": await Bun.file(PETS_SPEC).text(),
      ".openassistant/config.json": JSON.stringify({
        plugins: ["./elsewhere/ws"],
        openapi: { workspace: { spec: "specs/pets.json" } },
        mcp: { servers: { workspace: { url: server.url } } },
      }),
    });
    const r = await loadTools({ ...p.opts, ...noInstall, bundled: [builtin("workspace")] });
    expect(descriptionsUnder(r, "workspace")).toEqual(["the built-in"]);
    expect(r.entries.filter((e) => e.id === "workspace").map((e) => e.origin)).toEqual(["bundled"]);
    const refused = errorsOf(r, "workspace");
    expect(refused.map((d) => d.message.split(" is not loaded")[0])).toEqual([
      `tool file ${join(p.ws, "tools/workspace.ts")}`,
      `plugin "workspace" (${join(p.ws, "plugins/ws")})`,
      `tool file ${join(p.globalDir, "tools/workspace.ts")}`,
      `plugin "workspace" (${join(p.root, "elsewhere/ws")})`,
      `OpenAPI spec openapi.workspace (${join(p.root, "specs/pets.json")})`,
      `MCP server mcp.servers.workspace (${server.url})`,
    ]);
    for (const d of refused)
      expect(d.message).toContain("tools.workspace already belongs to the built-in tools.workspace");
    expect(refused.map((d) => d.hint.split(" so each")[0])).toEqual([
      `Rename ${join(p.ws, "tools/workspace.ts")} (its file name is its name)`,
      `Give the plugin in ${join(p.ws, "plugins/ws")} another "id" in its openassistant.json`,
      `Rename ${join(p.globalDir, "tools/workspace.ts")} (its file name is its name)`,
      `Give the plugin in ${join(p.root, "elsewhere/ws")} another "id" in its openassistant.json`,
      "Rename openapi.workspace in the config",
      "Rename mcp.servers.workspace in the config",
    ]);
  });

  test("what the config names (plugins, OpenAPI, MCP) keeps its name against the tools and plugins folders; OpenAPI before MCP", async () => {
    const server = await mcpServer();
    const p = tempProject({
      ".openassistant/tools/linear.ts": toolSource("file linear"),
      ...pluginDir(".openassistant/plugins/pets", "pets"),
      "~/tools/gh.ts": toolSource("global file gh"),
      ...pluginDir("elsewhere/gh", "gh", "path plugin gh"),
      "specs/pets.json": await Bun.file(PETS_SPEC).text(),
      ".openassistant/config.json": JSON.stringify({
        plugins: ["./elsewhere/gh"],
        openapi: { pets: { spec: "specs/pets.json" }, both: { spec: "specs/pets.json" } },
        mcp: { servers: { linear: { url: server.url }, both: { url: server.url } } },
      }),
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    expect(descriptionsUnder(r, "linear")).toEqual(["MCP ping"]);
    expect(descriptionsUnder(r, "gh")).toEqual(["path plugin gh"]);
    expect(descriptionsUnder(r, "pets")).not.toContain("plugin pets");
    expect(indexToolTree(r.tree).has("pets.pets.list")).toBe(true);
    expect(indexToolTree(r.tree).has("both.pets.list")).toBe(true);
    expect(indexToolTree(r.tree).has("both.ping")).toBe(false);
    expect(errorsOf(r, "linear").map((d) => d.message)).toEqual([
      `tool file ${join(p.ws, "tools/linear.ts")} is not loaded: tools.linear already belongs to MCP server mcp.servers.linear (${server.url}) (it comes first (docs/plugins.md, "Who owns a name")); a source never takes over another's name`,
    ]);
    expect(errorsOf(r, "pets")[0]!.message).toContain(
      `plugin "pets" (${join(p.ws, "plugins/pets")}) is not loaded: tools.pets already belongs to OpenAPI spec openapi.pets`,
    );
    expect(errorsOf(r, "gh")[0]!.message).toContain(`already belongs to plugin "gh" (${join(p.root, "elsewhere/gh")})`);
    expect(errorsOf(r, "both")[0]!.message).toContain(
      `MCP server mcp.servers.both (${server.url}) is not loaded: tools.both already belongs to OpenAPI spec openapi.both`,
    );
  });

  test("names starting with $ belong to the gateway ($search, $describe): a tool file or plugin taking one is refused", async () => {
    const p = tempProject({
      ".openassistant/tools/$search.ts": toolSource("fake search"),
      ...pluginDir(".openassistant/plugins/describe", "$describe"),
      ".openassistant/tools/fine.ts": toolSource("fine"),
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    expect([...indexToolTree(r.tree).keys()]).toEqual(["fine"]);
    const search = errorsOf(r, "$search");
    expect(search.map((d) => d.message)).toEqual([
      `tool file ${join(p.ws, "tools/$search.ts")} is not loaded: tools.$search is reserved for the gateway's built-in tools ($search, $describe)`,
    ]);
    expect(errorsOf(r, "$describe").map((d) => d.message)).toEqual([
      `plugin "$describe" (${join(p.ws, "plugins/describe")}) is not loaded: tools.$describe is reserved for the gateway's built-in tools ($search, $describe)`,
    ]);
    expect(r.entries.map((e) => e.id)).toEqual(["fine"]);
  });
});

describe("every pair of source kinds, through the real loaders", () => {
  /** Kinds in the order that owns a name (docs/plugins.md, "Who owns a name"). */
  const KINDS = ["builtin", "npm", "openapi", "mcp", "file", "folder", "global"] as const;
  type Kind = (typeof KINDS)[number];
  const label: Record<Kind, (id: string, p: { root: string; ws: string; globalDir: string }, url: string) => string> = {
    builtin: (id) => `the built-in tools.${id}`,
    npm: (id, p) => `npm plugin "${id}" (${join(p.root, "node_modules", `oa-${id}`)})`,
    openapi: (id, p) => `OpenAPI spec openapi.${id} (${join(p.root, "specs/pets.json")})`,
    mcp: (id, _p, url) => `MCP server mcp.servers.${id} (${url})`,
    file: (id, p) => `tool file ${join(p.ws, "tools", `${id}.ts`)}`,
    folder: (id, p) => `plugin "${id}" (${join(p.ws, "plugins", `dir_${id}`)})`,
    global: (id, p) => `tool file ${join(p.globalDir, "tools", `${id}.ts`)}`,
  };

  test("for each pair the one that comes first owns the name and serves its tools; the other is refused naming both", async () => {
    const server = await mcpServer();
    const pairs = KINDS.flatMap((a, i) => KINDS.slice(i + 1).map((b) => [a, b] as const));
    const files: Record<string, string> = { "specs/pets.json": await Bun.file(PETS_SPEC).text() };
    const plugins: string[] = [];
    const openapi: Record<string, { spec: string }> = {};
    const servers: Record<string, { url: string }> = {};
    const builtins: Array<{ id: string; tools: ToolTree }> = [];
    const claim = (kind: Kind, id: string) => {
      if (kind === "builtin") builtins.push(builtin(id));
      else if (kind === "npm") {
        Object.assign(files, pluginDir(`node_modules/oa-${id}`, id, `npm ${id}`));
        plugins.push(`oa-${id}`);
      } else if (kind === "openapi") openapi[id] = { spec: "specs/pets.json" };
      else if (kind === "mcp") servers[id] = { url: server.url };
      else if (kind === "file") files[`.openassistant/tools/${id}.ts`] = toolSource(`file ${id}`);
      else if (kind === "folder")
        Object.assign(files, pluginDir(`.openassistant/plugins/dir_${id}`, id, `folder ${id}`));
      else files[`~/tools/${id}.ts`] = toolSource(`global ${id}`);
    };
    // Both orders of listing: the later-listed kind first where the config allows it.
    for (const [a, b] of pairs) for (const kind of [b, a]) claim(kind, `x_${a}_${b}`);
    files[".openassistant/config.json"] = JSON.stringify({ plugins, openapi, mcp: { servers } });
    const p = tempProject(files);
    const r = await loadTools({ ...p.opts, ...noInstall, bundled: builtins });
    // What serves each name: a description only the owner's tools have.
    const serves: Record<Kind, (id: string) => boolean> = {
      builtin: (id) => descriptionsUnder(r, id).includes("the built-in"),
      npm: (id) => descriptionsUnder(r, id).includes(`npm ${id}`),
      openapi: (id) => indexToolTree(r.tree).has(`${id}.pets.list`),
      mcp: (id) => descriptionsUnder(r, id).includes("MCP ping"),
      file: (id) => descriptionsUnder(r, id).includes(`file ${id}`),
      folder: (id) => descriptionsUnder(r, id).includes(`folder ${id}`),
      global: (id) => descriptionsUnder(r, id).includes(`global ${id}`),
    };
    for (const [a, b] of pairs) {
      const id = `x_${a}_${b}`;
      expect({ id, owner: serves[a](id), other: serves[b](id) }).toEqual({ id, owner: true, other: false });
      expect(descriptionsUnder(r, id).length).toBeGreaterThan(0);
      expect(errorsOf(r, id).map((d) => d.message)).toEqual([
        `${label[b](id, p, server.url)} is not loaded: tools.${id} already belongs to ${label[a](id, p, server.url)} (it comes first (docs/plugins.md, "Who owns a name")); a source never takes over another's name`,
      ]);
    }
    expect(r.diagnostics.filter((d) => d.level === "error")).toHaveLength(pairs.length);
  });
});

describe("on reload the previous owner keeps its name", () => {
  test("an MCP server added to the config later does not take over a tool file's name; after it is renamed it loads", async () => {
    const server = await mcpServer();
    const p = tempProject({ ".openassistant/tools/linear.ts": toolSource("file linear") });
    const registry = createToolRegistry({ ...p.opts, ...noInstall });
    await registry.ready;
    p.write(".openassistant/config.json", JSON.stringify({ mcp: { servers: { linear: { url: server.url } } } }));
    const taken = await registry.reload();
    expect(indexToolTree(taken.tree).get("linear")?.description).toBe("file linear");
    expect(taken.diagnostics.filter((d) => d.level === "error").map((d) => d.message)).toEqual([
      `MCP server mcp.servers.linear (${server.url}) is not loaded: tools.linear already belongs to tool file ${join(p.ws, "tools/linear.ts")} (it had the name first); a source never takes over another's name`,
    ]);
    p.write(".openassistant/config.json", JSON.stringify({ mcp: { servers: { tracker: { url: server.url } } } }));
    const renamed = await registry.reload();
    expect(renamed.diagnostics.filter((d) => d.level === "error")).toEqual([]);
    expect(indexToolTree(renamed.tree).get("tracker.ping")?.description).toBe("MCP ping");
  });

  test("a plugin whose id is changed to a loaded name is refused; the owner keeps serving; a restart decides by precedence", async () => {
    const p = tempProject({
      "~/tools/calendar.ts": toolSource("global calendar"),
      ...pluginDir(".openassistant/plugins/cal", "cal", "project plugin"),
    });
    const registry = createToolRegistry({ ...p.opts, ...noInstall });
    const first = await registry.ready;
    expect(indexToolTree(first.tree).get("calendar")?.description).toBe("global calendar");
    // A project plugin comes before a global tool file, but the name is already taken.
    p.write(".openassistant/plugins/cal/openassistant.json", JSON.stringify({ id: "calendar" }));
    const s = await registry.reload();
    expect(indexToolTree(s.tree).get("calendar")?.description).toBe("global calendar");
    expect(indexToolTree(s.tree).has("calendar.ping")).toBe(false);
    expect(s.diagnostics.filter((d) => d.level === "error").map((d) => d.message)).toEqual([
      `plugin "calendar" (${join(p.ws, "plugins/cal")}) is not loaded: tools.calendar already belongs to tool file ${join(p.globalDir, "tools/calendar.ts")} (it had the name first); a source never takes over another's name`,
    ]);
    // A fresh start decides by precedence: the project plugin.
    const restart = await loadTools({ ...p.opts, ...noInstall });
    expect(indexToolTree(restart.tree).get("calendar.ping")?.description).toBe("project plugin");
  });

  test("a tool file added later cannot take over a plugin's name, even from a layer that would come first", async () => {
    const p = tempProject({ ...pluginDir("~/plugins/notes", "notes", "global plugin") });
    const registry = createToolRegistry({ ...p.opts, ...noInstall });
    await registry.ready;
    p.write(".openassistant/tools/notes.ts", toolSource("project file"));
    const s = await registry.reload();
    expect(indexToolTree(s.tree).get("notes.ping")?.description).toBe("global plugin");
    expect(s.entries.map((e) => `${e.id}:${e.origin}`)).toEqual(["notes:global"]);
    expect(s.diagnostics.filter((d) => d.level === "error")[0]?.source).toBe(join(p.ws, "tools/notes.ts"));
  });
});

/**
 * Names written by someone else — OpenAPI operationIds, parameter and schema names, MCP tool names,
 * tool file names and plugin ids with their config — are own keys only: `constructor`, `toString`
 * … become tools like any other name, and nothing is read from or written to Object.prototype.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMcpHttpServer, type TestMcpHttpServer } from "@openassistant/testkit/mcp/http-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { SDK_IMPORT, tempProject, toolSource } from "../../test/plugin-fixtures.ts";
import { loadTools } from "../plugins/index.ts";
import { indexToolTree } from "../tools/flatten.ts";
import { closeMcpConnections } from "./mcp/index.ts";
import { jsonInputOf } from "./json-schema-tool.ts";
import { loadOpenApiSource } from "./openapi/index.ts";

setDefaultTimeout(30_000);

const KEYS = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "prototype"] as const;
const ctx = () => ({ signal: new AbortController().signal, callId: "c1", log: console });

/** Own property names of the built-ins a `node[name]` walk would have written to. */
const builtinsNow = () =>
  [Object, Object.prototype, Function.prototype, Object.prototype.toString, Object.prototype.hasOwnProperty].map((o) =>
    Object.getOwnPropertyNames(o).sort(),
  );
const before = builtinsNow();

let mcp: TestMcpHttpServer | undefined;
const urls: string[] = [];
const api = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req) {
    urls.push(new URL(req.url).pathname + new URL(req.url).search);
    return Response.json({ ok: true });
  },
});
afterAll(async () => {
  await closeMcpConnections();
  await mcp?.close();
  api.stop(true);
  expect(builtinsNow()).toEqual(before);
});

describe("OpenAPI", () => {
  test("operationIds, parameters and schemas named like Object.prototype's members become own tools and fields", async () => {
    const op = (operationId: string, extra: Record<string, unknown> = {}) => ({
      get: { operationId, responses: { "200": { description: "ok" } }, ...extra },
    });
    const spec = {
      openapi: "3.0.3",
      info: { title: "proto", version: "1" },
      servers: [{ url: `http://127.0.0.1:${api.port}/v1` }],
      paths: {
        "/a": op("constructor/list", {
          parameters: [
            { name: "constructor", in: "query", schema: { type: "string" } },
            { name: "toString", in: "query", schema: { $ref: "#/components/schemas/toString" } },
          ],
        }),
        "/b": op("toString"),
        "/c": op("hasOwnProperty.get"),
        "/d/{valueOf}": op("valueOf/one", {
          parameters: [{ name: "valueOf", in: "path", required: true, schema: { type: "string" } }],
        }),
        "/e": op("prototype"),
      },
      components: { schemas: { toString: { type: "string", enum: ["x", "y"] } } },
    };
    const file = join(makeTempDir("oa-proto-"), "spec.json");
    writeFileSync(file, JSON.stringify(spec));
    const { tree } = await loadOpenApiSource({ name: "proto", spec: file });
    const tools = indexToolTree(tree);
    expect([...tools.keys()]).toEqual([
      "constructor.list",
      "hasOwnProperty.get",
      "prototype",
      "toString",
      "valueOf.one",
    ]);
    for (const k of ["constructor", "hasOwnProperty", "toString", "valueOf", "prototype"])
      expect(Object.hasOwn(tree, k)).toBe(true);

    // The schema named `toString` is the spec's own (an own key of $defs), not Object.prototype.toString.
    const list = tools.get("constructor.list")!;
    const schema = jsonInputOf(list)!.schema as { $defs: Record<string, unknown>; properties: Record<string, unknown> };
    expect(Object.keys(schema.$defs)).toEqual(["toString"]);
    expect(Object.getOwnPropertyDescriptor(schema.$defs, "toString")?.value).toEqual({
      type: "string",
      enum: ["x", "y"],
    });
    expect(Object.keys(schema.properties)).toEqual(["constructor", "toString"]);
    // Run with an input that lacks both (what a validator typed "any object" lets through): an
    // optional parameter that is not given is not sent, it is not Object.prototype's member.
    await list.run({}, ctx());
    await list.run({ constructor: "c", toString: "x" }, ctx());
    const one = tools.get("valueOf.one")!;
    await one.run(one.args.parse({ valueOf: "v1" }), ctx());
    expect(urls).toEqual(["/v1/a", "/v1/a?constructor=c&toString=x", "/v1/d/v1"]);
  });
});

describe("MCP", () => {
  test("tools named like Object.prototype's members are listed and called by their own names", async () => {
    // The SDK's McpServer keeps its tools in a plain object (it refuses a tool named `constructor`
    // as "already registered"), so this server answers tools/list and tools/call itself.
    mcp = await startMcpHttpServer((s) => {
      s.server.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: KEYS.map((name) => ({
          name,
          description: `the ${name} tool`,
          inputSchema: { type: "object" as const },
        })),
      }));
      s.server.setRequestHandler(CallToolRequestSchema, async (req) => ({
        content: [{ type: "text" as const, text: `ran ${req.params.name}` }],
      }));
    });
    const p = tempProject({
      ".openassistant/config.json": JSON.stringify({ mcp: { servers: { srv: { url: mcp.url } } } }),
    });
    const r = await loadTools({ ...p.opts, autoInstall: false });
    expect(r.diagnostics.filter((d) => d.level !== "info")).toEqual([]);
    const tools = indexToolTree(r.tree);
    // `__proto__` becomes `proto` (callableName drops the underscores that are not inside a word).
    expect([...tools.keys()].sort()).toEqual(
      ["srv.constructor", "srv.hasOwnProperty", "srv.proto", "srv.prototype", "srv.toString", "srv.valueOf"].sort(),
    );
    for (const k of KEYS) {
      const t = tools.get(`srv.${k === "__proto__" ? "proto" : k}`)!;
      expect(t.description).toBe(`the ${k} tool`);
      expect(await t.run(t.args.parse({}), ctx())).toBe(`ran ${k}`);
    }
  });
});

describe("tool files and plugins", () => {
  test("ids named like Object.prototype's members load; their config and config.tools are read as own keys only", async () => {
    const files: Record<string, string> = {};
    for (const k of KEYS) files[`.openassistant/tools/${k}.ts`] = toolSource(`file ${k}`);
    const p = tempProject({
      ...files,
      ".openassistant/plugins/ts/package.json": JSON.stringify({
        name: "oa-ts",
        type: "module",
        openassistant: { entry: "./index.ts" },
      }),
      ".openassistant/plugins/ts/openassistant.json": JSON.stringify({
        id: "hasOwnProperty_plugin",
        configSchema: { type: "object", properties: { level: { type: "number" } }, additionalProperties: false },
      }),
      ".openassistant/plugins/ts/index.ts": `${SDK_IMPORT}
export default (ctx) => ({ level: defineTool({ description: "level", approval: "auto", args: z.object({}), run: async () => ctx.config.level ?? "none" }) });`,
      ".openassistant/config.json": JSON.stringify({ tools: { valueOf: false } }),
    });
    const r = await loadTools({ ...p.opts, autoInstall: false });
    const tools = indexToolTree(r.tree);
    expect([...tools.keys()].sort()).toEqual(
      ["constructor", "hasOwnProperty", "hasOwnProperty_plugin.level", "prototype", "toString"].sort(),
    );
    expect(await tools.get("hasOwnProperty_plugin.level")!.run({}, ctx())).toBe("none");
    expect(r.entries.find((e) => e.id === "valueOf")?.status).toBe("disabled");
    expect(r.entries.find((e) => e.id === "toString")?.status).toBe("loaded");
    // `__proto__.ts` starts with `_`, so it is a helper, not a tool; nothing set the tree's prototype.
    expect(r.diagnostics.filter((d) => d.level === "error")).toEqual([]);
    expect(r.entries.map((e) => e.id)).not.toContain("__proto__");
    expect(Object.getPrototypeOf(r.tree)).toBe(Object.prototype);
  });

  test("a plugin whose id is toString gets its own config, not Object.prototype.toString", async () => {
    const p = tempProject({
      ".openassistant/plugins/ts/package.json": JSON.stringify({
        name: "oa-ts",
        type: "module",
        openassistant: { entry: "./index.ts" },
      }),
      ".openassistant/plugins/ts/openassistant.json": JSON.stringify({
        id: "toString",
        configSchema: { type: "object", properties: { level: { type: "number" } }, additionalProperties: false },
      }),
      ".openassistant/plugins/ts/index.ts": `${SDK_IMPORT}
export default (ctx) => ({ level: defineTool({ description: "level", approval: "auto", args: z.object({}), run: async () => ctx.config.level ?? "none" }) });`,
      ".openassistant/plugins/c/package.json": JSON.stringify({
        name: "oa-c",
        type: "module",
        openassistant: { entry: "./index.ts" },
      }),
      ".openassistant/plugins/c/openassistant.json": JSON.stringify({ id: "constructor" }),
      ".openassistant/plugins/c/index.ts": `${SDK_IMPORT}
export default (ctx) => ({ keys: defineTool({ description: "keys", approval: "auto", args: z.object({}), run: async () => Object.keys(ctx.config) }) });`,
    });
    const r = await loadTools({ ...p.opts, autoInstall: false });
    expect(r.diagnostics.filter((d) => d.level !== "info")).toEqual([]);
    const tools = indexToolTree(r.tree);
    expect(await tools.get("toString.level")!.run({}, ctx())).toBe("none");
    expect(await tools.get("constructor.keys")!.run({}, ctx())).toEqual([]);
    p.write(".openassistant/config.json", JSON.stringify({ config: { toString: { level: 3 } } }));
    const again = await loadTools({ ...p.opts, autoInstall: false });
    expect(await indexToolTree(again.tree).get("toString.level")!.run({}, ctx())).toBe(3);
  });
});

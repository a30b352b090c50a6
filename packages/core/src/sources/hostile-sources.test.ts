import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { startRawToolsMcpServer } from "@openassistant/testkit/mcp/raw-tools-server.ts";
import {
  BACKTRACKING_INPUT,
  BACKTRACKING_SCHEMA,
  hostileSchemas,
  SECOND_BRANCH_PATTERN,
} from "../../test/hostile-schemas.ts";
import { tempProject } from "../../test/plugin-fixtures.ts";
import { loadTools } from "../plugins/index.ts";
import { indexToolTree } from "../tools/flatten.ts";
import { closeMcpConnections } from "./mcp/index.ts";

setDefaultTimeout(30_000);

/** Stands for the gateway's /health: served from this thread, so it answers only when the event loop is free. */
const health = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ ok: true }) });
/** A `$ref` target nothing may ever fetch. */
const remoteAsked: string[] = [];
const remote = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (req) => {
    remoteAsked.push(req.url);
    return Response.json({ type: "string" });
  },
});
const REMOTE = `http://127.0.0.1:${remote.port}`;
const HOSTILE = hostileSchemas(REMOTE);

const mcp = await startRawToolsMcpServer(
  [
    { name: "echo", description: "Echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
    { name: "backtrack", description: "Backtracking input pattern", inputSchema: BACKTRACKING_SCHEMA },
    {
      name: "shout",
      description: "Structured output whose pattern has a catastrophic first branch",
      inputSchema: { type: "object" },
      outputSchema: { type: "object", properties: { word: { type: "string", pattern: SECOND_BRANCH_PATTERN } } },
    },
    {
      name: "count",
      description: "Structured output that breaks its own schema",
      inputSchema: { type: "object" },
      outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
    },
    ...HOSTILE.map((h) => ({ name: h.name, description: `hostile ${h.name}`, inputSchema: h.schema })),
  ],
  (name, args) =>
    name === "shout"
      ? { content: [{ type: "text", text: "!" }], structuredContent: { word: BACKTRACKING_INPUT } }
      : name === "count"
        ? { content: [{ type: "text", text: "x" }], structuredContent: { n: "x" } }
        : { content: [{ type: "text", text: JSON.stringify(args) }] },
);

afterAll(async () => {
  await closeMcpConnections();
  await mcp.close();
  health.stop(true);
  remote.stop(true);
});

/** The same schemas as OpenAPI operations (a `$ref` chain through components instead of `$defs`). */
function hostileSpec(): Record<string, unknown> {
  const paths: Record<string, unknown> = {
    "/pets": { get: { operationId: "listPets", parameters: [{ name: "q", in: "query", schema: { type: "string" } }] } },
  };
  const schemas: Record<string, unknown> = { d0: { type: "string" } };
  for (let i = 1; i <= 200; i++) schemas[`d${i}`] = { $ref: `#/components/schemas/d${i - 1}` };
  const operation = (id: string, schema: unknown) => ({
    post: { operationId: id, requestBody: { content: { "application/json": { schema } } } },
  });
  for (const h of HOSTILE) {
    if (h.name === "refCycle" || h.name === "refChain" || h.name === "refNowhere") continue;
    paths[`/${h.name}`] = operation(h.name, h.schema);
  }
  paths["/refChain"] = operation("refChain", { $ref: "#/components/schemas/d200" });
  paths["/refNowhere"] = operation("refNowhere", { $ref: "#/components/schemas/missing" });
  return { openapi: "3.0.3", info: { title: "Hostile", version: "1" }, paths, components: { schemas } };
}

describe("a hostile tool source costs only its own tools", () => {
  test("MCP and OpenAPI sources with every hostile schema: each named with its limit, the rest loads, /health answers every poll", async () => {
    const p = tempProject({
      ".openassistant/tools/clock.ts": `import { defineTool, z } from "@openassistant/sdk";\nexport default defineTool({ description: "clock", approval: "auto", args: z.object({}), run: async () => 1 });\n`,
      "specs/hostile.json": JSON.stringify(hostileSpec()),
      ".openassistant/config.json": JSON.stringify({
        mcp: { servers: { evil: { url: mcp.url } } },
        openapi: { spec: { spec: "specs/hostile.json", baseUrl: "http://127.0.0.1:9/v1" } },
      }),
    });
    const polls: Array<{ status: number; ok: unknown; during: boolean }> = [];
    let loading = true;
    const poller = (async () => {
      while (loading) {
        const res = await fetch(`http://127.0.0.1:${health.port}/health`);
        polls.push({ status: res.status, ok: ((await res.json()) as { ok?: unknown }).ok, during: loading });
      }
    })();
    const result = await loadTools({ ...p.opts, autoInstall: false }).finally(() => {
      loading = false;
    });
    await poller;

    const paths = [...indexToolTree(result.tree).keys()].sort();
    expect(paths).toEqual(["clock", "evil.backtrack", "evil.count", "evil.echo", "evil.shout", "spec.listPets"]);
    const errors = result.diagnostics.filter((d) => d.level === "error");
    for (const [source, names] of [
      ["evil", HOSTILE.map((h) => h.name)],
      ["spec", HOSTILE.filter((h) => h.name !== "refCycle").map((h) => h.name)],
    ] as const)
      for (const name of names) {
        const limit = HOSTILE.find((h) => h.name === name)!.limit;
        const found = errors.find(
          (d) => d.id === source && d.message.startsWith(`tool "${name}" of source "${source}"`),
        );
        expect(found?.message).toMatch(limit);
        expect(found?.hint).toContain("the source's other tools still load");
      }
    expect(errors.length).toBe(HOSTILE.length + HOSTILE.length - 1);
    expect(remoteAsked).toEqual([]);

    // Every poll answered, some while the sources were loading.
    expect(polls.length).toBeGreaterThan(0);
    expect(polls.every((r) => r.status === 200 && r.ok === true)).toBe(true);
    expect(polls.some((r) => r.during)).toBe(true);

    // The loaded tools work: a backtracking pattern answers at once on both sides of a call.
    const tools = indexToolTree(result.tree);
    const backtrack = tools.get("evil.backtrack")!;
    expect(backtrack.args.safeParse({ word: BACKTRACKING_INPUT }).success).toBe(false);
    // The fake server answers with the arguments as JSON text, which comes back parsed.
    expect(await backtrack.run(backtrack.args.parse({ word: "aaa" }), ctx())).toEqual({ word: "aaa" });
    // Its output is checked on RE2 too: the built-in engine (the SDK's Ajv) would give up in the
    // first branch and call this valid output invalid.
    const shout = tools.get("evil.shout")!;
    expect(await shout.run({}, ctx())).toEqual({ word: BACKTRACKING_INPUT });
    const count = tools.get("evil.count")!;
    const error = await count.run({}, ctx()).catch((e: Error) => e);
    expect(String(error)).toContain("Structured content does not match the tool's output schema");
  });
});

describe("an MCP message the SDK would parse whole", () => {
  test("a tool list of more than 8 MB is not read: the server is one diagnostic naming the limit, the rest loads", async () => {
    const huge = await startRawToolsMcpServer([
      { name: "big", description: "z".repeat(9 * 1024 * 1024), inputSchema: { type: "object" } },
    ]);
    try {
      const p = tempProject({
        ".openassistant/tools/clock.ts": `import { defineTool, z } from "@openassistant/sdk";\nexport default defineTool({ description: "clock", approval: "auto", args: z.object({}), run: async () => 1 });\n`,
        ".openassistant/config.json": JSON.stringify({ mcp: { servers: { huge: { url: huge.url } } } }),
      });
      const result = await loadTools({ ...p.opts, autoInstall: false });
      expect([...indexToolTree(result.tree).keys()]).toEqual(["clock"]);
      const errors = result.diagnostics.filter((d) => d.level === "error");
      expect(errors.map((d) => [d.id, d.message])).toEqual([
        [
          "huge",
          expect.stringContaining('MCP server "huge" sent a message of more than 8388608 bytes; it is not read'),
        ],
      ]);
    } finally {
      await huge.close();
    }
  });
});

describe("an MCP message the SDK would parse whole, over stdio", () => {
  test("a tool list line of more than 8 MB closes the connection: one diagnostic naming the limit, the rest loads", async () => {
    const p = tempProject({
      ".openassistant/tools/clock.ts": `import { defineTool, z } from "@openassistant/sdk";\nexport default defineTool({ description: "clock", approval: "auto", args: z.object({}), run: async () => 1 });\n`,
      "tools.json": JSON.stringify([
        { name: "big", description: "z".repeat(9 * 1024 * 1024), inputSchema: { type: "object" } },
      ]),
    });
    const script = Bun.resolveSync("@openassistant/testkit/mcp/raw-tools-stdio.ts", import.meta.dir);
    p.write(
      ".openassistant/config.json",
      JSON.stringify({
        mcp: {
          servers: {
            hugeStdio: { command: process.execPath, args: [script, join(p.root, "tools.json")], allowProcess: true },
          },
        },
      }),
    );
    const result = await loadTools({ ...p.opts, autoInstall: false });
    expect([...indexToolTree(result.tree).keys()]).toEqual(["clock"]);
    expect(result.diagnostics.filter((d) => d.level === "error").map((d) => [d.id, d.message])).toEqual([
      ["hugeStdio", 'MCP server "hugeStdio" sent a message of more than 8388608 bytes; it is not read'],
    ]);
  });
});

describe("an OpenAPI spec in YAML", () => {
  test("anchors that would expand to 10^12 nodes cost their operation only", async () => {
    const levels = Array.from(
      { length: 12 },
      (_, i) => `  l${i + 1}: &l${i + 1} { anyOf: [${Array(10).fill(`*l${i}`).join(", ")}] }`,
    );
    const yaml = [
      "openapi: 3.0.3",
      "info: { title: Laughs, version: '1' }",
      "x-laughs:",
      "  l0: &l0 { type: string, description: lol }",
      ...levels,
      "paths:",
      "  /laugh:",
      "    post:",
      "      operationId: laugh",
      "      requestBody: { content: { application/json: { schema: { type: object, properties: { a: *l12 } } } } }",
      "  /pets:",
      "    get: { operationId: listPets }",
      "",
    ].join("\n");
    const p = tempProject({
      "specs/laughs.yaml": yaml,
      ".openassistant/config.json": JSON.stringify({
        openapi: { laughs: { spec: "specs/laughs.yaml", baseUrl: "http://127.0.0.1:9/v1" } },
      }),
    });
    const result = await loadTools({ ...p.opts, autoInstall: false });
    expect([...indexToolTree(result.tree).keys()]).toEqual(["laughs.listPets"]);
    expect(result.diagnostics.filter((d) => d.level === "error").map((d) => d.message)).toEqual([
      expect.stringMatching(
        /^tool "laugh" of source "laughs" is not loaded: its input schema has more than 2500 nodes at #\/…\/.*anyOf/,
      ),
    ]);
  });
});

const ctx = () => ({ signal: new AbortController().signal, callId: "c1", log: console });

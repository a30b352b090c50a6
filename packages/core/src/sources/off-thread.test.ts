import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { startRawToolsMcpServer } from "@openassistant/testkit/mcp/raw-tools-server.ts";
import { hostileSchemas } from "../../test/hostile-schemas.ts";
import { tempProject } from "../../test/plugin-fixtures.ts";
import { loadTools } from "../plugins/index.ts";
import { indexToolTree } from "../tools/flatten.ts";
import { closeMcpConnections } from "./mcp/index.ts";
import { jsonInputOf } from "./json-schema-tool.ts";

setDefaultTimeout(30_000);

/**
 * The gateway's thread and a hostile source's content: everything a source sends whole (an MCP
 * `tools/list` answer, an OpenAPI spec) is parsed, checked and rendered on the source worker, and
 * what this thread does with it comes in units bounded per tool. Counted in units of work, not
 * time: the characters each `JSON.parse` on this thread is given, and whether a tool's validator
 * was built here.
 */

/** Stands for the gateway's /health: served from this thread, so it answers only when the event loop is free. */
const health = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ ok: true }) });
const HOSTILE = hostileSchemas("http://127.0.0.1:9");

/** A schema well inside the limits, ~10 K characters: 60 of them make a message past what this thread parses. */
function allowed(i: number): Record<string, unknown> {
  return {
    type: "object",
    properties: Object.fromEntries(
      Array.from({ length: 60 }, (_, j) => [
        `p${i}_${j}`,
        { type: "string", enum: ["a", "b", "c"], description: `f${j}` },
      ]),
    ),
  };
}

const LISTED = [
  ...Array.from({ length: 60 }, (_, i) => ({ name: `ok${i}`, description: `ok ${i}`, inputSchema: allowed(i) })),
  ...HOSTILE.map((h) => ({ name: h.name, description: `hostile ${h.name}`, inputSchema: h.schema })),
];
const mcp = await startRawToolsMcpServer(LISTED);

afterAll(async () => {
  await closeMcpConnections();
  await mcp.close();
  health.stop(true);
});

function spec(): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const operation = (id: string, schema: unknown) => ({
    post: { operationId: id, requestBody: { content: { "application/json": { schema } } } },
  });
  for (let i = 0; i < 60; i++) paths[`/ok${i}`] = operation(`ok${i}`, allowed(i));
  for (const h of HOSTILE) if (!h.name.startsWith("ref")) paths[`/${h.name}`] = operation(h.name, h.schema);
  return { openapi: "3.0.3", info: { title: "Hostile", version: "1" }, paths };
}

/** The length of every string `JSON.parse` is given on this thread while `work` runs (workers have their own `JSON`). */
async function parsedOnThisThread<T>(work: () => Promise<T>): Promise<{ result: T; texts: string[] }> {
  const parse = JSON.parse;
  const texts: string[] = [];
  JSON.parse = (text: string, reviver?: Parameters<typeof parse>[1]) => {
    if (typeof text === "string") texts.push(text);
    return parse(text, reviver);
  };
  try {
    return { result: await work(), texts };
  } finally {
    JSON.parse = parse;
  }
}

describe("a hostile source's content never reaches the gateway's thread whole", () => {
  test("a 6 MB tool list and a 2 MB spec: no JSON text over 64 K characters is parsed here, no validator is built here, /health answers during the load", async () => {
    const listed = JSON.stringify(HOSTILE.map((h) => h.schema)).length;
    const specText = JSON.stringify(spec());
    expect(listed).toBeGreaterThan(4_000_000);
    expect(specText.length).toBeGreaterThan(2_000_000);
    const p = tempProject({
      "specs/spec.json": specText,
      ".openassistant/config.json": JSON.stringify({
        mcp: { servers: { evil: { url: mcp.url } } },
        openapi: { spec: { spec: "specs/spec.json", baseUrl: "http://127.0.0.1:9/v1" } },
      }),
    });
    const polls: number[] = [];
    let loading = true;
    const poller = (async () => {
      while (loading) {
        const res = await fetch(`http://127.0.0.1:${health.port}/health`);
        await res.arrayBuffer();
        if (loading) polls.push(res.status);
      }
    })();
    const { result, texts } = await parsedOnThisThread(() =>
      loadTools({ ...p.opts, autoInstall: false }).finally(() => {
        loading = false;
      }),
    );
    await poller;

    // Every allowed tool of both sources loaded; every hostile one is named with its limit.
    const tools = indexToolTree(result.tree);
    const names = [...tools.keys()];
    expect(names.filter((n) => n.startsWith("evil.ok")).length).toBe(60);
    expect(names.filter((n) => n.startsWith("spec.ok")).length).toBe(60);
    const errors = result.diagnostics.filter((d) => d.level === "error");
    for (const h of HOSTILE)
      expect(errors.find((d) => d.id === "evil" && d.message.startsWith(`tool "${h.name}" `))?.message).toMatch(
        h.limit,
      );
    expect(errors.filter((d) => d.id === "spec").length).toBe(HOSTILE.filter((h) => !h.name.startsWith("ref")).length);

    // The SDK parsed the listing on this thread — as an empty list naming the job that holds the tools.
    expect(texts.some((t) => t.includes('"tools":[]') && t.includes("openassistant/off-thread-listing"))).toBe(true);
    // Nothing this thread parsed was larger than one bounded piece.
    expect(Math.max(...texts.map((t) => t.length))).toBeLessThanOrEqual(64 * 1024);
    // Declarations were rendered (the tools are typed), their validators not built here.
    expect(result.declarations?.text).toContain("p0_0");
    for (const [path, definition] of tools)
      if (path.startsWith("evil.") || path.startsWith("spec."))
        expect([path, jsonInputOf(definition)?.built()]).toEqual([path, false]);
    // The event loop answered while the sources loaded.
    expect(polls.length).toBeGreaterThan(0);
    expect(polls.every((s) => s === 200)).toBe(true);

    // The tools work: a validator is built on first use, and the call reaches the server.
    const ok = tools.get("evil.ok0")!;
    expect(ok.args.safeParse({ p0_0: "z" }).success).toBe(false);
    expect(
      await ok.run(ok.args.parse({ p0_0: "a" }), { signal: new AbortController().signal, callId: "c1", log: console }),
    ).toEqual({ p0_0: "a" });
  });
});

describe("the same over stdio", () => {
  test("a 6 MB tools/list line is read on the source worker; the messages after it (a call's answer) still arrive, in order", async () => {
    const p = tempProject({ "tools.json": JSON.stringify(LISTED) });
    const script = Bun.resolveSync("@openassistant/testkit/mcp/raw-tools-stdio.ts", import.meta.dir);
    p.write(
      ".openassistant/config.json",
      JSON.stringify({
        mcp: {
          servers: {
            evilStdio: { command: process.execPath, args: [script, join(p.root, "tools.json")], allowProcess: true },
          },
        },
      }),
    );
    const { result, texts } = await parsedOnThisThread(() => loadTools({ ...p.opts, autoInstall: false }));
    const tools = indexToolTree(result.tree);
    expect([...tools.keys()].filter((n) => n.startsWith("evilStdio.ok")).length).toBe(60);
    const errors = result.diagnostics.filter((d) => d.level === "error");
    for (const h of HOSTILE)
      expect(errors.find((d) => d.id === "evilStdio" && d.message.startsWith(`tool "${h.name}" `))?.message).toMatch(
        h.limit,
      );
    expect(texts.some((t) => t.includes('"tools":[]') && t.includes("openassistant/off-thread-listing"))).toBe(true);
    expect(Math.max(...texts.map((t) => t.length))).toBeLessThanOrEqual(64 * 1024);
    const ok = tools.get("evilStdio.ok1")!;
    expect(
      await ok.run(ok.args.parse({ p1_0: "b" }), { signal: new AbortController().signal, callId: "c2", log: console }),
    ).toEqual({ p1_0: "b" });
  });
});

/**
 * Issue 25: a hostile tool source. Loads an MCP server and an OpenAPI spec listing every schema of
 * the hostile corpus (and, separately, a source at the limits: as many large-but-allowed schemas
 * as the per-source budget takes) while /health is polled from this thread and the event loop's
 * lag is sampled; then the linear-time regex engine against the built-in one on a backtracking
 * pattern, and the limit check over GitHub's 1,223 operations. Run alone: `bun bench/sources.bench.ts --hostile`.
 */
import { join } from "node:path";
import { loadTools } from "../packages/core/src/plugins/index.ts";
import { closeMcpConnections } from "../packages/core/src/sources/mcp/index.ts";
import { compileLinear } from "../packages/core/src/sources/linear-regex.ts";
import { describeOperations } from "../packages/core/src/sources/openapi/operations.ts";
import { prepareJsonSchema } from "../packages/core/src/sources/schema-limits.ts";
import { hostileSchemas } from "../packages/core/test/hostile-schemas.ts";
import { tempProject } from "../packages/core/test/plugin-fixtures.ts";
import type { RawTool } from "../packages/testkit/src/mcp/raw-tools-server.ts";
import { makeTempDir } from "../packages/testkit/src/temp.ts";
import { fmtMs, printTable, quantiles } from "./lib.ts";

type Listed = RawTool;

/** A schema just inside the limits: 400 properties, each with a pattern-free enum of 8 and a description. */
function largeAllowed(i: number): Record<string, unknown> {
  return {
    type: "object",
    properties: Object.fromEntries(
      Array.from({ length: 130 }, (_, j) => [
        `p${i}_${j}`,
        { type: "string", enum: ["a", "b", "c", "d", "e", "f"], description: `field ${j}` },
      ]),
    ),
  };
}

/** The MCP server runs in a child process, as a real one would: its own JSON work is not measured. */
async function startMcpChild(tools: Listed[]): Promise<{ url: string; close(): Promise<void> }> {
  const file = join(makeTempDir("oa-bench-hostile-"), "tools.json");
  await Bun.write(file, JSON.stringify(tools));
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "hostile-mcp.child.ts"), file], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = proc.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the MCP server child exited before printing its URL");
    text += new TextDecoder().decode(value);
  }
  return {
    url: text.trim(),
    close: async () => {
      proc.kill();
      await proc.exited;
    },
  };
}

/** The same tools from a stdio server (`raw-tools-stdio.ts`, the gateway starts it): one line of JSON. */
async function stdioServer(tools: Listed[]): Promise<{ config: unknown; close(): Promise<void> }> {
  const file = join(makeTempDir("oa-bench-hostile-"), "tools.json");
  await Bun.write(file, JSON.stringify(tools));
  const script = join(import.meta.dir, "../packages/testkit/src/mcp/raw-tools-stdio.ts");
  return { config: { command: process.execPath, args: [script, file], allowProcess: true }, close: async () => {} };
}

async function httpServer(tools: Listed[]): Promise<{ config: unknown; close(): Promise<void> }> {
  const child = await startMcpChild(tools);
  return { config: { url: child.url }, close: child.close };
}

async function loadWhilePolling(tools: Listed[], spec: unknown, over: "http" | "stdio" = "http") {
  const mcp = await (over === "stdio" ? stdioServer(tools) : httpServer(tools));
  const health = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ ok: true }) });
  const p = tempProject({
    "specs/spec.json": JSON.stringify(spec),
    ".openassistant/config.json": JSON.stringify({
      mcp: { servers: { evil: mcp.config } },
      openapi: { spec: { spec: "specs/spec.json", baseUrl: "http://127.0.0.1:9/v1" } },
    }),
  });
  let loading = true;
  const latencies: number[] = [];
  let failures = 0;
  const poller = (async () => {
    while (loading) {
      const t = performance.now();
      const res = await fetch(`http://127.0.0.1:${health.port}/health`).catch(() => undefined);
      if (res?.status === 200) latencies.push(performance.now() - t);
      else failures++;
      await res?.arrayBuffer();
    }
  })();
  // Wall-clock gaps between timer ticks (what a caller waits, CPU contention included) and this
  // thread's CPU between them (the longest stretch of work the event loop could not interrupt).
  const lags: number[] = [];
  const stretches: number[] = [];
  let last = performance.now();
  let lastCpu = process.threadCpuUsage();
  const sampler = setInterval(() => {
    const now = performance.now();
    const cpu = process.threadCpuUsage();
    lags.push(now - last);
    stretches.push((cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000);
    last = now;
    lastCpu = cpu;
  }, 1);
  const t = performance.now();
  const result = await loadTools({ ...p.opts, autoInstall: false });
  const loadMs = performance.now() - t;
  loading = false;
  clearInterval(sampler);
  await poller;
  await closeMcpConnections();
  await mcp.close();
  health.stop(true);
  return {
    loadMs,
    tools: [...Object.keys(result.tree)].length,
    errors: result.diagnostics.filter((d) => d.level === "error").length,
    polls: latencies.length,
    failures,
    health: quantiles(latencies),
    healthMax: Math.max(...latencies),
    lagMax: Math.max(...lags),
    stretchMax: Math.max(...stretches),
  };
}

function spec(ops: Array<[string, unknown]>) {
  const paths: Record<string, unknown> = { "/pets": { get: { operationId: "listPets" } } };
  for (const [id, schema] of ops)
    paths[`/${id}`] = { post: { operationId: id, requestBody: { content: { "application/json": { schema } } } } };
  return { openapi: "3.0.3", info: { title: "Bench", version: "1" }, paths };
}

export async function benchHostileSources(): Promise<void> {
  const echo: Listed = {
    name: "echo",
    description: "Echo",
    inputSchema: { type: "object", properties: { t: { type: "string" } } },
  };
  const hostile = hostileSchemas("http://127.0.0.1:9");
  const cases: Array<[string, Listed[], unknown, ("http" | "stdio")?]> = [
    ["benign (1 MCP tool, 1 operation)", [echo], spec([])],
    [
      `hostile (${hostile.length} MCP tools + ${hostile.length - 3} operations from the corpus, 1 benign each)`,
      [echo, ...hostile.map((h) => ({ name: h.name, description: h.name, inputSchema: h.schema }))],
      spec(hostile.filter((h) => !h.name.startsWith("ref")).map((h) => [h.name, h.schema])),
    ],
    [
      `hostile over stdio (the same ${hostile.length} MCP tools as one line, no spec)`,
      [echo, ...hostile.map((h) => ({ name: h.name, description: h.name, inputSchema: h.schema }))],
      spec([]),
      "stdio",
    ],
    [
      "at the limits (300 MCP tools + 300 operations of ~400 nodes: each source's budget fills)",
      Array.from({ length: 300 }, (_, i) => ({
        name: `big${i}`,
        description: `big ${i}`,
        inputSchema: largeAllowed(i),
      })),
      spec(Array.from({ length: 300 }, (_, i) => [`big${i}`, largeAllowed(i)])),
    ],
  ];
  await loadWhilePolling([echo], spec([])); // warm-up: TypeScript, the MCP SDK, swagger-parser imported once
  const rows: Array<Record<string, string | number>> = [];
  for (const [what, tools, s, over] of cases) {
    const r = await loadWhilePolling(tools, s, over);
    rows.push({
      load: what,
      "load time": fmtMs(r.loadMs),
      "left out (errors)": r.errors,
      "/health polls": `${r.polls} (${r.failures} failed)`,
      "/health median": fmtMs(r.health.median),
      "/health max": fmtMs(r.healthMax),
      "event-loop lag max": fmtMs(r.lagMax),
      "longest stretch (thread CPU)": fmtMs(r.stretchMax),
    });
  }
  printTable("Issue 25: loading a hostile tool source while /health is polled (same thread)", rows);

  const native = /^(a+)+$/;
  const linear = compileLinear("^(a+)+$");
  if (!("regex" in linear)) throw new Error(linear.reason);
  const time = (f: () => unknown) => {
    const t = performance.now();
    f();
    return performance.now() - t;
  };
  const regexRows: Array<Record<string, string | number>> = [];
  for (const n of [16, 20, 22, 24]) {
    const input = `${"a".repeat(n)}!`;
    regexRows.push({
      input: `"a" × ${n} + "!"`,
      "built-in RegExp": fmtMs(time(() => native.test(input))),
      "RE2 (re2js)": fmtMs(time(() => linear.regex.test(input))),
    });
  }
  // JavaScriptCore stops at its backtracking limit and answers "no match" (right here, by luck).
  for (const n of [30, 60]) {
    const input = `${"a".repeat(n)}!`;
    regexRows.push({
      input: `"a" × ${n} + "!"`,
      "built-in RegExp": `${fmtMs(time(() => native.test(input)))} (its backtracking limit)`,
      "RE2 (re2js)": fmtMs(time(() => linear.regex.test(input))),
    });
  }
  for (const n of [1_000, 100_000]) {
    const input = `${"a".repeat(n)}!`;
    regexRows.push({
      input: `"a" × ${n} + "!"`,
      "built-in RegExp": "(not run)",
      "RE2 (re2js)": fmtMs(time(() => linear.regex.test(input))),
    });
  }
  printTable("Issue 25: ^(a+)+$ on a non-matching input", regexRows);

  const githubSpec = Bun.resolveSync(
    "@octokit/openapi/generated/api.github.com.json",
    join(import.meta.dir, "../packages/testkit/src"),
  );
  const ops = await describeOperations(JSON.parse(await Bun.file(githubSpec).text()));
  const checkMs = time(() => {
    for (const op of ops) prepareJsonSchema(op.inputSchema);
  });
  printTable("Issue 25: the limit check over GitHub's spec", [
    { step: `prepareJsonSchema over ${ops.length} operations' input schemas`, time: fmtMs(checkMs) },
  ]);
}

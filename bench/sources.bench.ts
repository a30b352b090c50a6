/**
 * Tool sources beyond files (issue 15): prompt size with and without discovery, GitHub's OpenAPI
 * spec (load, cached load, declarations, typecheck), and an MCP call against a direct call.
 */
import { join } from "node:path";
import { generateDeclarations } from "../packages/core/src/codemode/declarations.ts";
import { approxTokens, promptToolListing, withDiscovery } from "../packages/core/src/codemode/tool-discovery.ts";
import { createTypechecker } from "../packages/core/src/codemode/typecheck.ts";
import { McpConnection } from "../packages/core/src/sources/mcp/index.ts";
import { loadOpenApiSource } from "../packages/core/src/sources/openapi/index.ts";
import { z } from "../packages/sdk/src/index.ts";
import { makeFixtureToolTree } from "../packages/testkit/src/tool-fixtures.ts";
import { startMcpHttpServer } from "../packages/testkit/src/mcp/http-server.ts";
import { makeTempDir } from "../packages/testkit/src/temp.ts";
import { bench, fmtMs, printTable } from "./lib.ts";

const BUDGET = 15_000;

const promptRows: Array<Record<string, string | number>> = [];
for (const n of [10, 200, 1000]) {
  const tree = makeFixtureToolTree(n);
  const full = generateDeclarations(tree).text;
  const listing = promptToolListing(tree, full, BUDGET);
  promptRows.push({
    tools: n,
    "declarations (tokens)": approxTokens(full),
    "prompt listing (tokens)": approxTokens(listing.text),
    mode: listing.mode,
  });
}

const spec = Bun.resolveSync(
  "@octokit/openapi/generated/api.github.com.json",
  join(import.meta.dir, "../packages/testkit/src"),
);
const cacheDir = makeTempDir("oa-bench-openapi-");
let t = performance.now();
const gh = await loadOpenApiSource({ name: "github", spec, baseUrl: "http://127.0.0.1:9", cacheDir });
const uncached = performance.now() - t;
const cached = await bench(
  "cached",
  () => loadOpenApiSource({ name: "github", spec, baseUrl: "http://127.0.0.1:9", cacheDir }),
  { iterations: 5, warmup: 1 },
);
t = performance.now();
const ghTree = withDiscovery({ github: gh.tree });
const ghDecl = generateDeclarations(ghTree);
const declMs = performance.now() - t;
const ghListing = promptToolListing({ github: gh.tree }, ghDecl.text, BUDGET);
promptRows.push({
  tools: `GitHub spec (${gh.operations} operations)`,
  "declarations (tokens)": approxTokens(ghDecl.text),
  "prompt listing (tokens)": approxTokens(ghListing.text),
  mode: ghListing.mode,
});
printTable(`Prompt size with and without discovery (budget ${BUDGET} tokens; tokens = characters / 4)`, promptRows);

const checker = createTypechecker();
await checker.warmUp();
const code = 'const r = await tools.github.issues.listForRepo({ owner: "acme", repo: "app" });\nreturn r;';
await checker.check(code, ghDecl.text); // first check sends the 1.2 MB of declarations once
const warm = await bench("check", () => checker.check(code, ghDecl.text), { iterations: 10, warmup: 2 });
await checker.close?.();
printTable("GitHub's OpenAPI spec as tools", [
  { step: "parse + describe operations (no cache)", time: fmtMs(uncached) },
  { step: "load from the parse cache (SHA-256 of the spec)", time: fmtMs(cached.medianMs) },
  { step: `declarations for ${gh.operations} operations`, time: fmtMs(declMs) },
  { step: "warm typecheck of a call against all of them", time: fmtMs(warm.medianMs) },
]);

const server = await startMcpHttpServer((s) => {
  s.registerTool("echo", { description: "Echo", inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));
});
const direct = async ({ text }: { text: string }) => ({ content: [{ type: "text", text }] });
const conn = new McpConnection("bench", { url: server.url });
await conn.listTools();
const viaMcp = await bench("mcp", () => conn.callTool("echo", { text: "hi" }), { iterations: 200, warmup: 20 });
const directCall = await bench("direct", () => direct({ text: "hi" }), { iterations: 200, warmup: 20 });
await conn.close();
await server.close();
printTable("MCP call overhead (streamable HTTP on 127.0.0.1, SDK client and server)", [
  { call: "direct function call", median: fmtMs(directCall.medianMs), p95: fmtMs(directCall.p95Ms) },
  {
    call: "MCP tools/call round trip",
    median: fmtMs(viaMcp.medianMs),
    p95: fmtMs(viaMcp.p95Ms),
    overhead: fmtMs(viaMcp.medianMs - directCall.medianMs),
  },
]);
process.exit(0);

/**
 * Tool sources beyond files (issue 15): prompt size with and without discovery, GitHub's OpenAPI
 * spec (load, cached load, declarations, typecheck), an MCP call against a direct call, and (issue 25)
 * a hostile source loading while /health is polled (hostile-sources.ts).
 */
import { join } from "node:path";
import { generateDeclarations } from "../packages/core/src/codemode/declarations.ts";
import { approxTokens, promptToolListing, withDiscovery } from "../packages/core/src/codemode/tool-discovery.ts";
import { createTypechecker } from "../packages/core/src/codemode/typecheck.ts";
import { McpConnection, mcpLogin } from "../packages/core/src/sources/mcp/index.ts";
import { loadOpenApiSource } from "../packages/core/src/sources/openapi/index.ts";
import { z } from "../packages/sdk/src/index.ts";
import { makeFixtureToolTree } from "../packages/testkit/src/tool-fixtures.ts";
import { startMcpHttpServer } from "../packages/testkit/src/mcp/http-server.ts";
import { startOAuthMcpServer } from "../packages/testkit/src/mcp/oauth-server.ts";
import { connectSdkClient } from "../packages/testkit/src/mcp/sdk-client.ts";
import { makeTempDir } from "../packages/testkit/src/temp.ts";
import { benchHostileSources } from "./hostile-sources.ts";
import { bench, fmtMs, printTable } from "./lib.ts";

// `--hostile`: only issue 25's part (a hostile source loading while /health is polled; RE2 vs RegExp).
if (process.argv.includes("--hostile")) {
  await benchHostileSources();
  process.exit(0);
}

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

const echo = (s: Parameters<Parameters<typeof startMcpHttpServer>[0]>[0]) =>
  s.registerTool("echo", { description: "Echo", inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));
const server = await startMcpHttpServer(echo);
const direct = async ({ text }: { text: string }) => ({ content: [{ type: "text", text }] });
const opts = { iterations: 300, warmup: 30 };
const directCall = await bench("direct", () => direct({ text: "hi" }), opts);
// The SDK's own client, no OpenAssistant code in between.
const sdk = await connectSdkClient(server.url);
const viaSdk = await bench("sdk", () => sdk.callTool({ name: "echo", arguments: { text: "hi" } }), opts);
await sdk.close();
const conn = new McpConnection("bench", { url: server.url });
await conn.listTools();
const viaMcp = await bench("mcp", () => conn.callTool("echo", { text: "hi" }), opts);
await conn.close();
await server.close();

// Behind OAuth: the bearer token is read from the 0600 file on every request; after expiry one
// call pays the 401, the refresh (rotated refresh token saved) and the retry.
const protectedServer = await startOAuthMcpServer(echo);
const configDir = makeTempDir("oa-bench-oauth-");
await mcpLogin({
  name: "bench",
  serverUrl: protectedServer.url,
  oauth: {},
  configDir,
  openUrl: async (url) => {
    const approved = await fetch(url, { redirect: "manual" });
    await fetch(approved.headers.get("location")!);
  },
});
const authed = new McpConnection("bench", { url: protectedServer.url, oauth: {} }, configDir);
await authed.listTools();
const viaOAuth = await bench("oauth", () => authed.callTool("echo", { text: "hi" }), opts);
const refreshed = await bench(
  "refresh",
  async () => {
    protectedServer.expireAccessTokens();
    await authed.callTool("echo", { text: "hi" });
  },
  { iterations: 30, warmup: 3 },
);
await authed.close();
await protectedServer.close();

const row = (call: string, r: { medianMs: number; p95Ms: number }) => ({
  call,
  median: fmtMs(r.medianMs),
  p95: fmtMs(r.p95Ms),
  "vs SDK client": r === directCall ? "" : fmtMs(r.medianMs - viaSdk.medianMs),
});
printTable("MCP call overhead (streamable HTTP on 127.0.0.1, SDK server)", [
  row("direct function call", directCall),
  row("SDK Client.callTool (no OpenAssistant code)", viaSdk),
  row("McpConnection.callTool", viaMcp),
  row("McpConnection.callTool, OAuth bearer (token from the 0600 file)", viaOAuth),
  row("the same right after the access token expired (401, refresh, save, retry)", refreshed),
]);
await benchHostileSources();
process.exit(0);

/**
 * One measurement of bench/huge-spec.bench.ts, in a process of its own so its RSS is its own:
 * `bun huge-spec.child.ts <tree root> <spec file> <snippet>` prints one JSON line. The tree root
 * is this checkout or an older one (the ratios' "previous tree"); a tree without per-snippet
 * declarations (reachable-declarations.ts) declares every tool, as its gateway did.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

const [root, spec, code] = process.argv.slice(2) as [string, string, string];
const core = (p: string) => join(root, "packages/core/src", p);
const { loadOpenApiSource } = await import(core("sources/openapi/index.ts"));
const { generateDeclarations } = await import(core("codemode/declarations.ts"));
const { withDiscovery } = await import(core("codemode/tool-discovery.ts"));
const { createTypechecker } = await import(core("codemode/typecheck.ts"));
const { flattenToolTree } = await import(core("tools/flatten.ts"));
const perSnippet = existsSync(core("codemode/reachable-declarations.ts"))
  ? await import(core("codemode/reachable-declarations.ts"))
  : undefined;

const mb = (bytes: number) => Math.round(bytes / 1e6);
const checker = createTypechecker();
await checker.warmUp(); // the gateway warms its checker while the sources load
let t = performance.now();
const source = await loadOpenApiSource({ name: "api", spec, baseUrl: "http://127.0.0.1:9" });
const tree = withDiscovery({ api: source.tree });
const loadMs = performance.now() - t;
const loadRss = process.memoryUsage().rss;
t = performance.now();
let declarations: string;
let mode: string;
if (perSnippet && flattenToolTree(tree).length > perSnippet.WHOLE_DECLARATIONS_TOOLS) {
  const reached = perSnippet.declarationsReachedBy(tree, code);
  if (!reached.ok) throw new Error(reached.text);
  declarations = reached.text;
  mode = "per snippet";
} else {
  declarations = generateDeclarations(tree).text;
  mode = "whole";
}
const declMs = performance.now() - t;
t = performance.now();
const result = await checker.check(code, declarations);
const checkMs = performance.now() - t;
const rssAfter = process.memoryUsage().rss;
await checker.close();
console.log(
  JSON.stringify({
    operations: source.operations,
    skipped: source.skipped.length,
    loadMs,
    declMs,
    checkMs,
    mode,
    declChars: declarations.length,
    ok: result.ok,
    loadRssMb: mb(loadRss),
    rssMb: mb(rssAfter),
    maxRssMb: mb(process.resourceUsage().maxRSS * 1024),
  }),
);

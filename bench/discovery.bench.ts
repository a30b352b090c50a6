/**
 * Discovery retrieval (issue 15): when the tools do not fit the prompt, the model finds them with
 * `tools.$search(query)`. This measures that step, not the model: for a fixed set of requests
 * (packages/testkit/src/discovery-queries.ts) with their right answers, how often `$search` puts
 * a right tool first (recall@1) or in the first five (recall@5), the mean reciprocal rank, and how
 * long a search takes, on testkit's synthetic tools (10 / 200 / 1,000) and on GitHub's official
 * OpenAPI description. The baseline is the ranking before #15's ranking work (substring scores
 * over the path and the description), kept here verbatim so both run in the same process.
 * `bun bench/discovery.bench.ts`
 */
import { join } from "node:path";
import type { ToolTree } from "../packages/sdk/src/index.ts";
import { declareTool, generateDeclarations } from "../packages/core/src/codemode/declarations.ts";
import { discoveryTools } from "../packages/core/src/codemode/tool-discovery.ts";
import { buildToolSearchIndex } from "../packages/core/src/codemode/tool-search.ts";
import { loadOpenApiSource } from "../packages/core/src/sources/openapi/index.ts";
import { type FlatTool, flattenToolTree, indexToolTree } from "../packages/core/src/tools/flatten.ts";
import { callableName } from "../packages/core/src/tools/names.ts";
import { type QueryOutcome, runRetrieval, scoreRetrieval } from "../packages/testkit/src/discovery-eval.ts";
import { FIXTURE_QUERIES, GITHUB_QUERIES, type RetrievalQuery } from "../packages/testkit/src/discovery-queries.ts";
import { makeTempDir } from "../packages/testkit/src/temp.ts";
import { makeFixtureToolTree } from "../packages/testkit/src/tool-fixtures.ts";
import { fmtMs, printTable, quantiles } from "./lib.ts";

type Search = (query: string, limit: number) => Promise<string[]>;

/** `$search` as it was before the ranking work (commit c33bd35), for the baseline rows. */
function baselineSearch(tree: ToolTree): Search {
  const words = (text: string) =>
    text
      .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((w) => w.length > 1);
  const tools = flattenToolTree(tree).map((t) => ({
    ...t,
    haystack: ` ${words(t.path).join(" ")} ${words(t.definition.description).join(" ")} `,
  }));
  return async (query, limit) => {
    const terms = words(query);
    return tools
      .map((t) => {
        let score = 0;
        for (const term of terms) {
          if (t.path.toLowerCase().includes(term)) score += 3;
          if (t.haystack.includes(` ${term} `)) score += 2;
          else if (t.haystack.includes(term)) score += 1;
        }
        return { t, score };
      })
      .filter((x) => x.score > 0)
      .sort((a, b) => b.score - a.score || a.t.path.localeCompare(b.t.path))
      .slice(0, limit)
      .map(({ t }) => {
        declareTool(t.path, t.definition); // the old $search rendered every hit's declaration too
        return t.path;
      });
  };
}

/** The real `tools.$search` tool (ranking + declarations of the hits). */
function currentSearch(tree: ToolTree): Search {
  const tool = indexToolTree(discoveryTools(() => tree)).get("$search")!;
  return async (query, limit) =>
    ((await tool.run(tool.args.parse({ query, limit }))) as Array<{ path: string }>).map((h) =>
      h.path.replace(/^tools\./, ""),
    );
}

const spec = Bun.resolveSync(
  "@octokit/openapi/generated/api.github.com.json",
  join(import.meta.dir, "../packages/testkit/src"),
);
const cacheDir = makeTempDir("oa-bench-discovery-");
const loadGitHub = () => loadOpenApiSource({ name: "github", spec, baseUrl: "http://127.0.0.1:9", cacheDir });
const gh = await loadGitHub();

interface Corpus {
  readonly name: string;
  readonly tree: ToolTree;
  /** The same tools as new definitions (nothing cached on them), for the first-search rows. */
  readonly fresh: () => Promise<ToolTree>;
  readonly queries: readonly RetrievalQuery[];
  readonly toPath: (answer: string) => string;
}
const corpora: Corpus[] = [
  ...[10, 200, 1000].map((n) => ({
    name: `synthetic, ${n} tools`,
    tree: makeFixtureToolTree(n),
    fresh: async () => makeFixtureToolTree(n),
    queries: FIXTURE_QUERIES,
    toPath: (a: string) => a,
  })),
  {
    name: `GitHub spec, ${gh.operations} operations`,
    tree: { github: gh.tree },
    fresh: async () => ({ github: (await loadGitHub()).tree }),
    queries: GITHUB_QUERIES,
    toPath: (a: string) => `github.${callableName(a)}`,
  },
];

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
const quality: Array<Record<string, string | number>> = [];
const latency: Array<Record<string, string | number>> = [];
const misses: Array<Record<string, string | number>> = [];
for (const c of corpora) {
  const tools: FlatTool[] = flattenToolTree(c.tree);
  const paths = new Set(tools.map((t) => t.path));
  const exists = (p: string) => paths.has(p);
  // The first search of a tree builds its index. The gateway has declared every tool for the
  // typecheck by then (which builds each tool's input schema), so that is done first, untimed.
  const firsts: number[] = [];
  const builds: number[] = [];
  for (let i = 0; i < 5; i++) {
    const tree = await c.fresh();
    generateDeclarations(tree);
    let t0 = performance.now();
    buildToolSearchIndex(flattenToolTree(tree));
    builds.push(performance.now() - t0);
    const search = currentSearch(tree);
    t0 = performance.now();
    await search(c.queries[0]!.query, 10);
    firsts.push(performance.now() - t0);
  }
  const rankers = { before: baselineSearch(c.tree), after: currentSearch(c.tree) };
  const outcomes: Record<string, QueryOutcome[]> = {};
  for (const [name, search] of Object.entries(rankers))
    outcomes[name] = await runRetrieval(c.queries, (q) => search(q, 50), c.toPath, exists);
  for (const split of ["tune", "test", "all"] as const) {
    const pick = (o: QueryOutcome[]) => (split === "all" ? o : o.filter((x) => x.split === split));
    const before = scoreRetrieval(pick(outcomes.before!));
    const after = scoreRetrieval(pick(outcomes.after!));
    quality.push({
      tools: c.name,
      split: split === "test" ? "test (held out)" : split,
      queries: after.queries,
      "recall@1 before → after": `${pct(before.recallAt1)} → ${pct(after.recallAt1)}`,
      "recall@5 before → after": `${pct(before.recallAt5)} → ${pct(after.recallAt5)}`,
      "MRR before → after": `${before.mrr.toFixed(2)} → ${after.mrr.toFixed(2)}`,
    });
  }
  for (const o of outcomes.after!)
    if (o.rank === undefined || o.rank > 5)
      misses.push({
        tools: c.name,
        query: `"${o.query}"${o.hard ? " (hard)" : ""}`,
        split: o.split,
        rank: o.rank ?? "> 50",
        "first hit": o.top,
      });

  // Latency: every query of the set in turn, the default limit (10), declarations included.
  const texts = c.queries.map((q) => q.query);
  const timeAll = async (search: Search, rounds: number) => {
    const samples: number[] = [];
    for (let r = 0; r < rounds; r++)
      for (const q of texts) {
        const t0 = performance.now();
        await search(q, 10);
        if (r > 0) samples.push(performance.now() - t0); // round 0 warms up
      }
    return quantiles(samples);
  };
  const rounds = tools.length >= 1000 ? 6 : 21;
  const b = await timeAll(rankers.before, rounds);
  const a = await timeAll(rankers.after, rounds);
  latency.push({
    tools: c.name,
    "first search of a new tree, median of 5": fmtMs(quantiles(firsts).median),
    "index build alone (same trees)": fmtMs(quantiles(builds).median),
    "search median / p95, before": `${fmtMs(b.median)} / ${fmtMs(b.p95)}`,
    "search median / p95, after": `${fmtMs(a.median)} / ${fmtMs(a.p95)}`,
  });
}

printTable(
  "$search retrieval: a right tool first (recall@1), in the first five (recall@5), mean reciprocal rank",
  quality,
);
printTable("$search latency (`tools.$search` run, limit 10, declarations of the hits included)", latency);
printTable("Queries whose right tool is not in the first five (after)", misses);
process.exit(0);

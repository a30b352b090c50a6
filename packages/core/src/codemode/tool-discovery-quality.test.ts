import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import type { ToolTree } from "@openassistant/sdk";
import { type QueryOutcome, runRetrieval, scoreRetrieval } from "@openassistant/testkit/discovery-eval.ts";
import { FIXTURE_QUERIES, GITHUB_QUERIES, type RetrievalQuery } from "@openassistant/testkit/discovery-queries.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { makeFixtureToolTree } from "@openassistant/testkit/tool-fixtures.ts";
import { loadOpenApiSource } from "../sources/openapi/index.ts";
import { indexToolTree } from "../tools/flatten.ts";
import { callableName } from "../tools/names.ts";
import { discoveryTools } from "./tool-discovery.ts";

/**
 * A ranking regression fails here: `tools.$search` against the fixed request set, with floors a
 * little under what bench/discovery.bench.ts measured (BENCHMARKS.md, "Discovery retrieval").
 * Quality, not time: nothing here is timed.
 */

// GitHub's description is 13 MB: parsing it takes seconds on a busy machine.
setDefaultTimeout(120_000);

async function retrieval(
  tree: ToolTree,
  queries: readonly RetrievalQuery[],
  toPath: (answer: string) => string,
): Promise<QueryOutcome[]> {
  const tools = indexToolTree(tree);
  const search = indexToolTree(discoveryTools(() => tree)).get("$search")!;
  return runRetrieval(
    queries,
    async (query) =>
      ((await search.run(search.args.parse({ query, limit: 50 }))) as Array<{ path: string }>).map((h) =>
        h.path.replace(/^tools\./, ""),
      ),
    toPath,
    (path) => tools.has(path),
  );
}

const split = (outcomes: QueryOutcome[], which: "tune" | "test") =>
  scoreRetrieval(outcomes.filter((o) => o.split === which));

describe("$search finds the right tool for realistic requests", () => {
  test("synthetic tools (testkit's makeFixtureToolTree) at 10, 200 and 1,000", async () => {
    const at = async (n: number) => retrieval(makeFixtureToolTree(n), FIXTURE_QUERIES, (a) => a);
    // Every answer names a real fixture tool, so a typo cannot hide a query.
    const all = indexToolTree(makeFixtureToolTree(1000));
    expect(FIXTURE_QUERIES.flatMap((q) => q.expect).filter((p) => !all.has(p))).toEqual([]);

    const ten = scoreRetrieval(await at(10));
    expect(ten).toMatchObject({ queries: 10, recallAt1: 1 });
    const twoHundred = scoreRetrieval(await at(200));
    expect(twoHundred.queries).toBe(22);
    expect(twoHundred.recallAt5).toBeGreaterThanOrEqual(0.9); // measured 0.95
    expect(twoHundred.mrr).toBeGreaterThanOrEqual(0.72); // measured 0.78
    const thousand = await at(1000);
    expect(thousand.length).toBe(FIXTURE_QUERIES.length);
    expect(scoreRetrieval(thousand).recallAt1).toBeGreaterThanOrEqual(0.65); // measured 0.73
    expect(scoreRetrieval(thousand).recallAt5).toBeGreaterThanOrEqual(0.75); // measured 0.81
    expect(scoreRetrieval(thousand).mrr).toBeGreaterThanOrEqual(0.74); // measured 0.80
    expect(split(thousand, "test").recallAt5).toBeGreaterThanOrEqual(0.68); // held out; measured 0.75
  });

  test("GitHub's official OpenAPI description (1,200+ operations)", async () => {
    const spec = Bun.resolveSync(
      "@octokit/openapi/generated/api.github.com.json",
      join(import.meta.dir, "../../../testkit/src"),
    );
    const gh = await loadOpenApiSource({
      name: "github",
      spec,
      baseUrl: "http://127.0.0.1:9",
      cacheDir: makeTempDir("oa-discovery-quality-"),
    });
    const tree = { github: gh.tree };
    const toPath = (operationId: string) => `github.${callableName(operationId)}`;
    const tools = indexToolTree(tree);
    // Every answer is an operation of the spec.
    expect(GITHUB_QUERIES.flatMap((q) => q.expect).filter((id) => !tools.has(toPath(id)))).toEqual([]);

    const outcomes = await retrieval(tree, GITHUB_QUERIES, toPath);
    expect(outcomes.length).toBe(GITHUB_QUERIES.length);
    const all = scoreRetrieval(outcomes);
    expect(all.recallAt1).toBeGreaterThanOrEqual(0.65); // measured 0.71
    expect(all.recallAt5).toBeGreaterThanOrEqual(0.8); // measured 0.86
    expect(all.mrr).toBeGreaterThanOrEqual(0.72); // measured 0.77
    const heldOut = split(outcomes, "test");
    expect(heldOut.queries).toBe(33);
    expect(heldOut.recallAt5).toBeGreaterThanOrEqual(0.7); // measured 0.76
    expect(heldOut.mrr).toBeGreaterThanOrEqual(0.62); // measured 0.70
  });
});

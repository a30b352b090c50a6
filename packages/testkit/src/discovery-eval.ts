import { querySplit, type QuerySplit, type RetrievalQuery } from "./discovery-queries.ts";

/** One query's outcome: the 1-based rank of its first right answer (undefined: not in the results). */
export interface QueryOutcome {
  readonly query: string;
  readonly split: QuerySplit;
  readonly hard: boolean;
  readonly rank: number | undefined;
  /** What came first, for reading the misses. */
  readonly top: string;
}

export interface RetrievalScore {
  readonly queries: number;
  /** Share of queries with a right answer first. */
  readonly recallAt1: number;
  /** Share of queries with a right answer in the first five. */
  readonly recallAt5: number;
  /** Mean of 1/rank of the first right answer (0 when it is not returned). */
  readonly mrr: number;
}

/**
 * Runs every query whose answers exist (`toPath` maps an answer to a tool path, `exists` says
 * whether the tree has it) through `search` (paths, best first) and ranks the first right answer.
 */
export async function runRetrieval(
  queries: readonly RetrievalQuery[],
  search: (query: string) => Promise<readonly string[]>,
  toPath: (answer: string) => string,
  exists: (path: string) => boolean,
): Promise<QueryOutcome[]> {
  const out: QueryOutcome[] = [];
  for (const [i, q] of queries.entries()) {
    const answers = q.expect.map(toPath);
    const missing = answers.filter((a) => !exists(a));
    if (missing.length === answers.length) continue;
    const hits = await search(q.query);
    const at = hits.findIndex((h) => answers.includes(h));
    out.push({
      query: q.query,
      split: querySplit(i),
      hard: q.hard === true,
      rank: at < 0 ? undefined : at + 1,
      top: hits[0] ?? "(nothing)",
    });
  }
  return out;
}

export function scoreRetrieval(outcomes: readonly QueryOutcome[]): RetrievalScore {
  const n = outcomes.length;
  const share = (k: number) => (n ? outcomes.filter((o) => o.rank !== undefined && o.rank <= k).length / n : 0);
  return {
    queries: n,
    recallAt1: share(1),
    recallAt5: share(5),
    mrr: n ? outcomes.reduce((s, o) => s + (o.rank ? 1 / o.rank : 0), 0) / n : 0,
  };
}

import type { ToolDefinition } from "@openassistant/sdk";
import type { FlatTool } from "../tools/flatten.ts";
import { jsonInputOf } from "../sources/json-schema-tool.ts";
import { joinedTerms, relatedTerms, searchTerms } from "./tool-search-terms.ts";

/**
 * The ranking behind `tools.$search`: BM25F over a tool's name (its path segments), its
 * description, and its parameters' names and descriptions, with the query widened by a small
 * table of related API words at a lower weight. Measured by bench/discovery.bench.ts against a
 * fixed set of requests; its floor is tool-discovery-quality.test.ts.
 */

type Field = "name" | "description" | "params" | "paramDocs" | "joined";
const FIELD_NAMES: readonly Field[] = ["name", "description", "params", "paramDocs", "joined"];

export interface RankingWeights {
  /** Per field: a word in the tool's name counts most, a parameter's description least. */
  readonly fields: Readonly<Record<Field, number>>;
  /** BM25 saturation and length normalisation. */
  readonly k1: number;
  readonly b: number;
  /** Weight of a related word (`remove` for `delete`) and of a joined pair, against a word typed. */
  readonly related: number;
  readonly joined: number;
  /**
   * How much it counts that the query explains the tool's name: the score is scaled by
   * `1 - coverage + coverage × (share of the name's idf the query matches)`, so `issues.listForRepo`
   * beats `repos.listIssueTypes` for "list issues in a repo".
   */
  readonly coverage: number;
  /** Weight of an index term a query word is a prefix of, used only for words no tool has. */
  readonly prefix: number;
}

/** Chosen on the "tune" half of the benchmark's requests (BENCHMARKS.md, "Discovery retrieval"). */
export const DEFAULT_RANKING: RankingWeights = {
  fields: { name: 3, description: 1, params: 0.6, paramDocs: 0.3, joined: 0.8 },
  k1: 1.2,
  b: 0.75,
  related: 0.4,
  joined: 0.7,
  coverage: 0.5,
  prefix: 0.5,
};

/** The tools a term occurs in, and its BM25F weight in each (saturated: 0 to k1 + 1). */
interface Postings {
  readonly docs: number[];
  readonly weights: number[];
}

export interface ToolSearchIndex {
  /** The best `limit` tools for `query`, best first; tools sharing no term with it are left out. */
  search(query: string, limit: number): FlatTool[];
}

/** Parameter names and descriptions of a tool's input (top level). */
function parameterText(definition: ToolDefinition): { names: string[]; docs: string[] } {
  // A tool made from a JSON Schema is read from it: reading `args` would build its validator.
  const json = jsonInputOf(definition);
  if (json) return json.parameters();
  const shape = (definition.args as { shape?: Record<string, unknown> }).shape ?? {};
  const names: string[] = [];
  const docs: string[] = [];
  for (const [name, schema] of Object.entries(shape)) {
    names.push(name);
    let s = schema as { description?: string; _zod?: { def?: { innerType?: unknown } } } | undefined;
    for (let depth = 0; s && depth < 4; depth++) {
      if (s.description) {
        docs.push(s.description);
        break;
      }
      s = s._zod?.def?.innerType as typeof s;
    }
  }
  return { names, docs };
}

export function buildToolSearchIndex(tools: readonly FlatTool[], w: RankingWeights = DEFAULT_RANKING): ToolSearchIndex {
  // Parameter texts repeat across tools ("The account owner of the repository"): split each once.
  const seen = new Map<string, string[]>();
  const terms = (text: string) => seen.get(text) ?? seen.set(text, searchTerms(text)).get(text)!;
  const fieldTerms = tools.map((t) => {
    const params = parameterText(t.definition);
    return {
      name: terms(t.path),
      description: terms(t.definition.description),
      params: params.names.flatMap(terms),
      paramDocs: params.docs.flatMap(terms),
      joined: [...joinedTerms(t.path), ...joinedTerms(t.definition.description)],
    } satisfies Record<Field, string[]>;
  });
  const avg = Object.fromEntries(
    FIELD_NAMES.map((f) => [f, Math.max(1, fieldTerms.reduce((s, d) => s + d[f].length, 0) / (tools.length || 1))]),
  ) as Record<Field, number>;
  const postings = new Map<string, Postings>();
  for (const [doc, d] of fieldTerms.entries()) {
    for (const f of FIELD_NAMES) {
      const norm = w.fields[f] / (1 - w.b + (w.b * d[f].length) / avg[f]);
      for (const term of d[f]) {
        let p = postings.get(term);
        if (!p) postings.set(term, (p = { docs: [], weights: [] }));
        const last = p.docs.length - 1;
        if (p.docs[last] === doc) p.weights[last]! += norm;
        else {
          p.docs.push(doc);
          p.weights.push(norm);
        }
      }
    }
  }
  for (const p of postings.values())
    for (let i = 0; i < p.weights.length; i++) p.weights[i] = (p.weights[i]! * (w.k1 + 1)) / (p.weights[i]! + w.k1);
  const n = tools.length;
  const idf = (term: string) => {
    const df = postings.get(term)?.docs.length ?? 0;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  };
  const nameTerms = fieldTerms.map((d) => [...new Set(d.name)].map((t) => ({ term: t, idf: idf(t) })));
  const vocabulary = [...postings.keys()].sort();
  /** Index terms that start with `term` (a word no tool has: `stargaz` → `stargazer`). */
  const withPrefix = (term: string) => {
    const out: string[] = [];
    if (term.length < 4) return out;
    let lo = 0;
    let hi = vocabulary.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (vocabulary[mid]! < term) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < vocabulary.length && vocabulary[i]!.startsWith(term) && out.length < 20; i++)
      out.push(vocabulary[i]!);
    return out;
  };

  return {
    search(query, limit) {
      const q = { terms: searchTerms(query), joined: joinedTerms(query) };
      const weights = new Map<string, number>();
      const want = (term: string, weight: number) => weights.set(term, Math.max(weights.get(term) ?? 0, weight));
      for (const typed of q.terms) {
        // A word no tool has: without a leading `re` (`resync`, `reopen`), else as a prefix.
        const term =
          postings.has(typed) || !typed.startsWith("re") || !postings.has(typed.slice(2)) ? typed : typed.slice(2);
        want(term, 1);
        for (const r of relatedTerms(term)) want(r, w.related);
        if (!postings.has(term)) for (const p of withPrefix(term)) want(p, w.prefix);
      }
      for (const term of q.joined) want(term, w.joined);
      const scores = new Map<number, number>();
      for (const [term, weight] of weights) {
        const p = postings.get(term);
        if (!p) continue;
        const k = weight * idf(term);
        for (let i = 0; i < p.docs.length; i++)
          scores.set(p.docs[i]!, (scores.get(p.docs[i]!) ?? 0) + k * p.weights[i]!);
      }
      for (const [doc, score] of scores) {
        let matched = 0;
        let total = 0;
        for (const t of nameTerms[doc]!) {
          total += t.idf;
          if (weights.has(t.term)) matched += t.idf;
        }
        scores.set(doc, score * (1 - w.coverage + (w.coverage * matched) / (total || 1)));
      }
      return [...scores]
        .sort(
          ([a, sa], [b, sb]) =>
            sb - sa ||
            tools[a]!.path.length - tools[b]!.path.length ||
            (tools[a]!.path < tools[b]!.path ? -1 : tools[a]!.path > tools[b]!.path ? 1 : 0),
        )
        .slice(0, limit)
        .map(([doc]) => tools[doc]!);
    },
  };
}

import type { Diagnostic } from "../config/diagnostic.ts";
import type { LoadedConfig } from "../config/load.ts";
import { locateConfigKey } from "../config/locate.ts";
import { matchToolPattern } from "../tools/pattern.ts";
import type { LoadEntry } from "./types.ts";

/**
 * Typos in ids are otherwise silent: `config.<id>` for no plugin, a `tools` key or a policy rule that
 * matches nothing. Each becomes a warning at the key's position with the closest known id/path.
 * `ids`: every id found (loaded or not); entries that did not load or were skipped hide their tool
 * paths, so keys under their id are not reported.
 */
export function findUnmatchedKeys(
  loaded: LoadedConfig,
  ids: readonly string[],
  entries: readonly LoadEntry[],
): Diagnostic[] {
  const { config, sources } = loaded;
  const out: Diagnostic[] = [];
  const known = new Set(ids);
  const opaque = new Set(entries.filter((e) => e.status !== "loaded" || e.stale).map((e) => e.id));
  const paths = entries.flatMap((e) => e.tools.map((t) => t.path));
  const names = [...new Set([...ids, ...paths])];
  const warn = (
    keyPath: Array<string | number>,
    label: string,
    problem: string,
    suggestion: string | undefined,
    hint: string,
  ) => {
    const at = locateConfigKey(sources, keyPath);
    out.push({
      level: "warning",
      id: "config",
      source: at?.file ?? sources.at(-1) ?? "(config)",
      ...(at ? { line: at.line, column: at.column } : {}),
      message: `${label}: ${problem}${suggestion ? `; did you mean "${suggestion}"?` : ""}`,
      hint,
    });
  };

  for (const id of Object.keys(config.config)) {
    if (known.has(id)) continue;
    warn(
      ["config", id],
      `config.${id}`,
      `no plugin or tool has the id "${id}", so this is ignored`,
      closest(id, ids),
      `Fix the id (known: ${ids.join(", ") || "none"}) or remove the entry.`,
    );
  }
  const covers = (key: string) => {
    const root = key.split(".")[0]!;
    if (opaque.has(root) || known.has(key)) return true;
    if (key.includes("*"))
      return (
        [...ids, ...paths].some((p) => matchToolPattern(key, p)) || [...opaque].some((id) => matchToolPattern(root, id))
      );
    return paths.some((p) => p === key || p.startsWith(`${key}.`));
  };
  for (const key of Object.keys(config.tools)) {
    if (covers(key)) continue;
    warn(
      ["tools", key],
      `tools["${key}"]`,
      "matches no tool or plugin, so it has no effect",
      closest(key, names),
      "Fix the id, path or pattern (run `openassistant plugins list` to see every tool path) or remove the key.",
    );
  }
  config.policy.rules.forEach((rule, i) => {
    const root = rule.match.split(".")[0]!;
    if (
      paths.some((p) => matchToolPattern(rule.match, p)) ||
      opaque.has(root) ||
      (rule.match.includes("*") && [...opaque].some((id) => matchToolPattern(root, id)))
    )
      return;
    warn(
      ["policy", "rules", i, "match"],
      `policy.rules[${i}].match "${rule.match}"`,
      "matches no tool, so the rule never applies",
      closest(rule.match, paths),
      "Use a full tool path (e.g. calendar.events.create) or a pattern (`*` = one segment, `**` = any depth); an id alone matches nothing, write `id.**`.",
    );
  });
  return out;
}

/** The closest name by edit distance, when close enough to be a plausible typo. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (!best || d < best.d) best = { name: c, d };
  }
  if (!best) return undefined;
  return best.d <= Math.max(2, Math.floor(word.length / 3)) ? best.name : undefined;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

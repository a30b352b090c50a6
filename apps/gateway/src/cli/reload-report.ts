import { flattenToolTree } from "@openassistant/core/tools";
import type { ToolSnapshot } from "../tools-source.ts";
import { formatDiagnostic } from "../diagnostics.ts";

/**
 * What changed between two tool snapshots, for the operator: added/removed tools and diagnostics
 * that were not there before. Empty when nothing the operator should know about changed.
 */
export function describeReload(before: ToolSnapshot, after: ToolSnapshot): string[] {
  const paths = (s: ToolSnapshot) => new Set(flattenToolTree(s.tree).map((t) => t.path));
  const was = paths(before);
  const now = paths(after);
  const added = [...now].filter((p) => !was.has(p)).sort();
  const removed = [...was].filter((p) => !now.has(p)).sort();
  const known = new Set(before.diagnostics.map(formatDiagnostic));
  const fresh = after.diagnostics.map(formatDiagnostic).filter((d) => !known.has(d));
  const failing = (s: ToolSnapshot) =>
    new Map(s.diagnostics.filter((d) => d.level === "error").map((d) => [d.id, d.source] as const));
  const stillFailing = failing(after);
  const fixed = [...failing(before)].filter(([id]) => !stillFailing.has(id));
  const lines: string[] = [];
  if (added.length) lines.push(`tools added: ${added.map((p) => `tools.${p}`).join(", ")}`);
  if (removed.length) lines.push(`tools removed: ${removed.map((p) => `tools.${p}`).join(", ")}`);
  for (const [id, source] of fixed) lines.push(`✓ ${id} is fine again (${source})`);
  for (const d of fresh) lines.push(`⚠ ${d}`);
  return lines;
}

/** One summary for `/reload`: the changes, or that nothing changed, plus the tool count. */
export function summarizeReload(before: ToolSnapshot, after: ToolSnapshot): string {
  const lines = describeReload(before, after);
  const problems = after.diagnostics.length
    ? `; ${after.diagnostics.length} problem${after.diagnostics.length === 1 ? "" : "s"} (\`openassistant plugins list\` shows them)`
    : "";
  return [
    `Reloaded: ${after.count} tool${after.count === 1 ? "" : "s"}${lines.length ? "" : ", no changes"}${problems}.`,
    ...lines.map((l) => `  ${l}`),
  ].join("\n");
}

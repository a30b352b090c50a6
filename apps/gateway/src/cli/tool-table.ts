import { resolvePolicy } from "@openassistant/core/policy";
import type { PolicyRule } from "@openassistant/core/policy";
import type { Diagnostic } from "@openassistant/core/config";
import { flattenToolTree } from "@openassistant/core/tools";
import { formatDiagnostic } from "../diagnostics.ts";
import type { ToolSnapshot } from "../tools-source.ts";

/** How many tools the model can call: the same line (and the same count) from `start` and `plugins list`. */
export function toolCountLine(count: number): string {
  return `${count} tool${count === 1 ? "" : "s"} available to the model.`;
}

/** The tool table printed at start and by doctor: path, effective approval, description. */
export function formatToolTable(snapshot: ToolSnapshot, policy: readonly PolicyRule[]): string {
  const rows = flattenToolTree(snapshot.tree).map((t) => {
    const mode = resolvePolicy(t.path, t.definition.approval, policy).mode;
    return [
      `tools.${t.path}`,
      mode === t.definition.approval ? mode : `${mode} (policy)`,
      t.definition.description.split("\n")[0]!.slice(0, 70),
    ] as const;
  });
  if (rows.length === 0)
    return "No tools loaded. Add one with `openassistant tools create <name>` or drop a .ts file into .openassistant/tools/.";
  const w0 = Math.max(4, ...rows.map((r) => r[0].length));
  const w1 = Math.max(8, ...rows.map((r) => r[1].length));
  const line = (a: string, b: string, c: string) => `${a.padEnd(w0)}  ${b.padEnd(w1)}  ${c}`;
  return [line("TOOL", "APPROVAL", "DESCRIPTION"), ...rows.map((r) => line(...r))].join("\n");
}

export function formatDiagnostics(diagnostics: readonly Diagnostic[]): string {
  return diagnostics.map((d) => `  ${d.level === "error" ? "✗" : "⚠"} ${formatDiagnostic(d)}`).join("\n");
}

import type { RunResult } from "./run-types.ts";

const icon = { succeeded: "✅", failed: "❌", denied: "⛔" } as const;

/** The run as the model reads it: outcome, return value, console output, one line per tool call. */
export function formatRunResultForModel(result: RunResult, maxChars = 12_000): string {
  const lines: string[] = [];
  lines.push(
    result.ok
      ? `Run ${result.runId} completed.`
      : `Run ${result.runId} failed: ${result.error?.name}: ${result.error?.message}`,
  );
  if (result.ok) lines.push(`Return value: ${result.valueJson ?? "undefined"}`);
  if (result.logs.length) {
    lines.push("Console output:");
    for (const log of result.logs) lines.push(`  [${log.level}] ${log.text}`);
  }
  if (result.calls.length) {
    lines.push("Tool calls:");
    for (const c of result.calls) {
      const who = c.decidedBy ? ` (${c.decision} by ${c.decidedBy})` : "";
      const why =
        c.status === "denied" ? `: ${c.reason ?? "denied"}` : c.status === "failed" ? `: ${c.error ?? "failed"}` : "";
      lines.push(`  ${icon[c.status]} ${c.toolPath} ${c.status}${who}${why} [${c.callId}]`);
    }
  } else {
    lines.push("Tool calls: none");
  }
  const text = lines.join("\n");
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 40)}\n… (output truncated at ${maxChars} chars)`;
}

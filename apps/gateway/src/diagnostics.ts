/** Tool diagnostics at the gateway: warnings from declaration generation, and the one text form edges print. */
import type { Diagnostic } from "@openassistant/core/config";

/** One diagnostic as a line: `error id (file:line:col): message — fix`. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = d.line ? `${d.source}:${d.line}:${d.column ?? 1}` : d.source;
  return `${d.level} ${d.id} (${where}): ${d.message}${d.hint ? ` — ${d.hint}` : ""}`;
}

/** A declaration the generator had to loosen (`tools.x.y: …`), as a warning about that tool. */
export function declarationWarning(warning: string): Diagnostic {
  const [, path = "tools", message = warning] = /^(tools\.[^:]+): (.*)$/s.exec(warning) ?? [];
  return {
    level: "warning",
    id: path,
    source: path,
    message,
    hint: "Give the argument a schema that zod-to-ts can print, or ignore this: the tool still loads.",
  };
}

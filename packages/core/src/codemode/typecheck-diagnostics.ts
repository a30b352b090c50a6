/** What a typecheck returns, shared by the checker child and the gateway side (no TypeScript import). */
export interface TypecheckDiagnostic {
  /** 1-based, relative to the model's code (line 1 = its first line). */
  readonly line: number;
  /** 1-based. */
  readonly column: number;
  readonly message: string;
  /** TypeScript error code (2339 …), or one of OA_DIAGNOSTIC for checks of our own. */
  readonly code: number;
  readonly category: "error";
}

export type TypecheckResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly diagnostics: readonly TypecheckDiagnostic[]; readonly text: string };

/** Codes of diagnostics that come from our own checks, not from TypeScript. */
export const OA_DIAGNOSTIC = {
  /** The checker itself failed or could not be reached; the snippet is rejected (fail closed). */
  unavailable: 90001,
  /** The code closes the wrapper function early (`}` … `{`). */
  escapesWrapper: 90002,
  /** `import(...)` / `import.meta` / `require` / `export`: snippets cannot load modules. */
  moduleAccess: 90003,
  /** `@ts-ignore` / `@ts-expect-error` / `@ts-nocheck`: the check may not be switched off. */
  suppression: 90004,
  /** The check ran past its time limit; the checker was replaced. */
  tooSlow: 90005,
  /** The check used more memory than its cap; the checker was replaced. */
  tooLarge: 90006,
  /** The code reaches more tools than are declared per snippet (`tools.graph` as a whole). */
  reachesTooMany: 90007,
} as const;

const MAX_REPORTED = 20;

export function reportDiagnostics(diagnostics: readonly TypecheckDiagnostic[]): string {
  const lines = diagnostics.slice(0, MAX_REPORTED).map((d) => {
    const tag = d.code >= 90000 ? "" : ` (TS${d.code})`;
    return `line ${d.line}, col ${d.column}: ${d.message.replaceAll("\n", "\n  ")}${tag}`;
  });
  if (diagnostics.length > MAX_REPORTED) lines.push(`… and ${diagnostics.length - MAX_REPORTED} more errors`);
  return lines.join("\n");
}

/** A result made of one diagnostic of our own (line 1 unless given). */
export function failWith(code: number, message: string, line = 1, column = 1): TypecheckResult {
  const d: TypecheckDiagnostic = { line, column, message, code, category: "error" };
  return { ok: false, diagnostics: [d], text: reportDiagnostics([d]) };
}

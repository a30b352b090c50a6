import { precheckSnippet } from "./precheck.ts";

/** The model's snippet could not be turned into JavaScript. The message names the line and what to change. */
export class SnippetTranspileError extends Error {
  override name = "SnippetTranspileError";
}

const HEAD = "async function __oa_snippet() {\n";
const TAIL = "\n}\n";

/**
 * The transpiler can never execute anything: `macro: false` makes Bun refuse every macro import
 * ("Macros are disabled"; verified on Bun 1.4.5 — `macro: {}` or leaving it out still RUNS
 * `import { spawnSync } from "bun" with { type: "macro" }` at transpile time). The type says
 * `MacroMap`, but Bun's JSTranspiler reads a boolean `false` as "no macros". No JSX (loader "ts"),
 * no automatic JSX import, no Bun runtime imports, an inline empty tsconfig (nothing read from
 * disk), no `define` replacements. No dead-code elimination, tree shaking, inlining or import
 * trimming: the body must run as written. The model's code only gets here after precheckSnippet.
 */
export const SNIPPET_TRANSPILER_OPTIONS = Object.freeze({
  loader: "ts",
  target: "browser",
  macro: false as unknown as Bun.MacroMap,
  autoImportJSX: false,
  allowBunRuntime: false,
  tsconfig: { compilerOptions: {} },
  define: {},
  deadCodeElimination: false,
  treeShaking: false,
  trimUnusedImports: false,
  inline: false,
  minifyWhitespace: false,
  logLevel: "error",
} satisfies Bun.TranspilerOptions);
const transpiler = new Bun.Transpiler(SNIPPET_TRANSPILER_OPTIONS);

/**
 * Strips TypeScript from a snippet (an async function BODY: top-level `await` and `return` allowed)
 * and returns the JavaScript body. The caller wraps it in its own async function to run it.
 */
export function transpileSnippet(code: string): string {
  // Before anything parses the code: nothing that could load or resolve a module goes further.
  const refused = precheckSnippet(code);
  if (refused) throw new SnippetTranspileError(`line ${refused.line}, col ${refused.column}: ${refused.message}`);
  const wrapped = HEAD + code + TAIL;
  let js: string;
  try {
    js = transpiler.transformSync(wrapped);
  } catch (error) {
    throw new SnippetTranspileError(describeBuildError(error));
  }
  // Bun lowers `using`, decorators and `accessor` to imports from its runtime, above our function.
  if (js.slice(0, Math.max(0, js.indexOf(HEAD.trim()))).includes('"bun:wrap"'))
    throw new SnippetTranspileError(
      "this snippet uses syntax that needs runtime helpers the sandbox does not have (`using` / `await using` declarations, decorators or `accessor` fields); use try/finally and plain classes instead.",
    );
  // No import scan of the result: a second full parse (18 µs warm, 140–190 µs after an idle gap),
  // and nothing it could find gets this far. precheckSnippet refuses `import`, `export` and
  // `require` before the transpiler parses anything (precheck.test.ts fuzzes it against the
  // transpiler's own scan), and the VM has no module loader (escapes.test.ts).
  return unwrap(js);
}

function unwrap(js: string): string {
  if (/^async function __oa_snippet\(\) \{\s*\}\s*$/.test(js)) return "";
  const start = js.indexOf("{\n");
  const end = js.lastIndexOf("}");
  if (!js.startsWith("async function __oa_snippet()") || start < 0 || end < start)
    throw new SnippetTranspileError("the snippet must be the body of one function; check for unbalanced braces");
  return js.slice(start + 2, end).replace(/\n$/, "");
}

function describeBuildError(error: unknown): string {
  const e = error as { message?: string; position?: { line: number; column: number } | null };
  const message = e?.message ?? String(error);
  if (e?.position) {
    const line = Math.max(1, e.position.line - 1); // line 1 of the wrapped source is our header
    return `line ${line}, col ${e.position.column}: ${message}`;
  }
  return message;
}

/**
 * The TypeScript checker itself (compiler API, in-memory host). It runs inside the checker child
 * process (typecheck-child.ts); the gateway talks to it through createTypechecker (typecheck.ts) and
 * never loads TypeScript itself. Only one-shot tools (the `doctor` command, tests of declarations)
 * use it in process.
 *
 * Building a program and its type checker (merging the lib's globals, resolving global types) was
 * most of a check's time. So one program (prelude + tool declarations + lib) and its checker now
 * serve many snippets: each snippet is parsed and bound as a module file of its own, outside the
 * program, and checked by that checker. Being a module, nothing it declares becomes global, so no
 * snippet sees another. A checker is retired (the next check gets a new one) after any check that
 * reported anything, after a large snippet and after CHECKS_PER_CHECKER checks; so a checker only
 * ever carries what clean checks left in it (resolved types, relation caches), never an error
 * TypeScript reports once and then caches silently (a missing global type, an instantiation cut
 * off at its depth limit). typecheck-program.test.ts checks a corpus both ways (a checker per
 * snippet, and one checker for all) and requires the same diagnostics.
 */
import { dirname, join } from "node:path";
import ts from "typescript";
import { PRELUDE } from "./ambient-declarations.ts";
import { cutText } from "../text/cut.ts";
import {
  OA_DIAGNOSTIC,
  reportDiagnostics as report,
  type TypecheckDiagnostic,
  type TypecheckResult,
} from "./typecheck-diagnostics.ts";

// No return annotation: `Promise<unknown>` would make TS2355 demand a `return` in every snippet.
const WRAPPER_HEAD = "async function __run() {\n";
const WRAPPER_TAIL = "\n}\n";
const PRELUDE_FILE = "/prelude.d.ts";
const TOOLS_FILE = "/tools.d.ts";

const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  lib: ["lib.es2022.d.ts"],
  types: [],
  strict: true,
  noEmit: true,
  noResolve: true,
  noLib: false,
  skipLibCheck: true,
  skipDefaultLibCheck: true,
  libReplacement: false,
  allowJs: false,
  exactOptionalPropertyTypes: false,
  noUncheckedIndexedAccess: false,
  // What the snippets are (see snippetFile); declaration files are never forced.
  moduleDetection: ts.ModuleDetectionKind.Force,
};

/**
 * A checker serves this many checks at most: each check leaves types and node links behind in it
 * (20–80 KiB per snippet, measured), so memory stays bounded.
 */
export const CHECKS_PER_CHECKER = 200;
/** A snippet longer than this retires its checker (it may have left megabytes behind). */
const LARGE_SNIPPET = 20_000;
/**
 * Checked first on every new checker (in idle time when the child can): it resolves the global
 * types a snippet that awaits tool calls uses (Promise, Promise.all, arrays), which a new checker
 * would otherwise resolve during the first real check (measured: that check's CPU 9.7 → 5.4 ms for
 * the typecheck bench's snippet; this warm-up costs ~6 ms on top of building the checker, a larger
 * one touching JSON, Object.entries and the error classes ~19 ms for no further gain). Lib names
 * only, so it passes against any tool declarations; a checker it does not pass on is not used.
 */
const WARM_SNIPPET =
  "const rows = await Promise.all([1, 2].map(async (x) => ({ x })));\nconsole.log(rows.length);\nreturn rows;";

/**
 * What practice() checks: lib names only, and what model code does most (an async call with an
 * object literal, Promise.all over map, property access, console.log).
 */
const practiceSnippet = (i: number) =>
  `const add = async (input: { text: string; n?: number }) => ({ id: ${i}, ...input });
const r = await add({ text: "x${i}" });
const rows = await Promise.all([1, 2].map((n) => add({ text: String(n), n })));
console.log(r.id, rows.length);
return { r, rows };`;

const libDir = dirname(Bun.resolveSync("typescript", import.meta.dir));

/** Parsed lib files, shared by every checker in the process (they never change). */
const libFiles = new Map<string, ts.SourceFile | undefined>();
let preludeFile: ts.SourceFile | undefined;

function libSourceFile(fileName: string, languageVersion: ts.ScriptTarget | ts.CreateSourceFileOptions) {
  if (libFiles.has(fileName)) return libFiles.get(fileName);
  const text = ts.sys.readFile(fileName);
  const file =
    text === undefined ? undefined : ts.createSourceFile(fileName, text, languageVersion, false, ts.ScriptKind.TS);
  libFiles.set(fileName, file);
  return file;
}

/**
 * What the reuse needs beyond TypeScript's public API (TypeScript is pinned to an exact version,
 * and the tests fail if either changes):
 * - `bindSourceFile`: binds a snippet outside any program. It is what a program's checker runs on
 *   each of its files first, and it only writes to the file's own nodes;
 * - a SourceFile's `path`/`resolvedPath`, which a program sets on its own files: its diagnostics
 *   cache is keyed by path, so every snippet gets a path of its own.
 */
interface TsInternals {
  bindSourceFile(file: ts.SourceFile, options: ts.CompilerOptions): void;
}
const internals = ts as unknown as TsInternals;

/** What `moduleDetection: "force"` sets on a program's own (non-declaration) files. */
const markAsModule = (file: ts.SourceFile) => {
  (file as { externalModuleIndicator?: unknown }).externalModuleIndicator = true;
};

export interface ProgramChecker {
  /**
   * Parses the standard library and builds a warm checker for `declarations` (default: no tools),
   * so the first real check against them is fast. `key` as in check().
   */
  warmUp(declarations?: string, key?: string): void;
  /**
   * Typechecks a snippet (a function body) against `declarations` (text from generateDeclarations).
   * `key` (e.g. the declarations' hash) names the text in the parsed-declarations cache; default: the text.
   */
  check(code: string, declarations: string, key?: string): TypecheckResult;
  /**
   * Idle-time work: when the last check retired its checker, builds and warms the next one for the
   * same declarations, so the next check does not wait for it. Returns whether it built one.
   */
  prepare(): boolean;
  /**
   * Idle-time work: `checks` clean checks of a lib-only snippet on the current checker (replacing
   * it when they retire it), so the JIT compiles TypeScript's checker before real checks need it
   * (what it buys: GATEWAY_PRACTICE_CHECKS in typecheck.ts).
   * Returns false (and stops) if the snippet does not pass, which never happens with a sound setup.
   */
  practice(checks: number): boolean;
  /**
   * Errors in `declarations` themselves (a generated type that does not compile, e.g. a name a
   * schema made twice), one line each: `line <n>: <message> — <the line, cut>`. A snippet's check
   * reports only the snippet's own errors, so `doctor` asks this too.
   */
  checkDeclarations(declarations: string): string[];
  /** Checkers built so far, checks made on the current one, practice checks made (for tests and benchmarks). */
  stats(): {
    readonly built: number;
    readonly checksOnCurrent: number;
    readonly ready: boolean;
    readonly practised: number;
  };
}

const NO_TOOLS = "declare const tools: {};\n";

/** Parsed declaration files kept per checker, by key (the tool tree rarely changes). */
const DECLARATION_CACHE = 4;

/** One program (prelude + tool declarations + lib) and its type checker, serving many snippets. */
interface Session {
  readonly key: string;
  readonly declarations: string;
  readonly program: ts.Program;
  checks: number;
  /** The next check needs a new checker (see the file comment). */
  retired: boolean;
}

/**
 * The in-memory compiler host both programs use: the prelude, the tools' declarations (given by
 * `toolsFile`) and TypeScript's own libraries; nothing else exists.
 */
function inMemoryHost(
  toolsFile: (languageVersion: ts.ScriptTarget | ts.CreateSourceFileOptions) => ts.SourceFile,
): ts.CompilerHost {
  return {
    getSourceFile(fileName, languageVersion) {
      if (fileName === TOOLS_FILE) return toolsFile(languageVersion);
      if (fileName === PRELUDE_FILE)
        return (preludeFile ??= ts.createSourceFile(PRELUDE_FILE, PRELUDE, languageVersion, false, ts.ScriptKind.TS));
      if (fileName.startsWith(libDir)) return libSourceFile(fileName, languageVersion);
      return undefined;
    },
    getDefaultLibFileName: () => join(libDir, "lib.es2022.d.ts"),
    getDefaultLibLocation: () => libDir,
    writeFile: () => {},
    getCurrentDirectory: () => "/",
    getCanonicalFileName: (f) => f,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => "\n",
    fileExists: (f) => f === TOOLS_FILE || f === PRELUDE_FILE || (f.startsWith(libDir) && ts.sys.fileExists(f)),
    readFile: (f) => (f.startsWith(libDir) ? ts.sys.readFile(f) : undefined),
    directoryExists: (d) => d === "/" || d.startsWith(libDir),
    getDirectories: () => [],
  };
}

export function createProgramChecker(): ProgramChecker {
  let oldProgram: ts.Program | undefined;
  let session: Session | undefined;
  let built = 0;
  let practised = 0;
  let seq = 0;
  const declarationFiles = new Map<string, ts.SourceFile>();

  const declarationsFile = (
    key: string,
    text: string,
    languageVersion: ts.ScriptTarget | ts.CreateSourceFileOptions,
  ) => {
    let file = declarationFiles.get(key);
    if (file) {
      declarationFiles.delete(key);
    } else {
      file = ts.createSourceFile(TOOLS_FILE, text, languageVersion, false, ts.ScriptKind.TS);
      if (declarationFiles.size >= DECLARATION_CACHE) declarationFiles.delete(declarationFiles.keys().next().value!);
    }
    declarationFiles.set(key, file);
    return file;
  };

  /**
   * A new program and checker for these declarations (parsed files reused). `warm`: check
   * WARM_SNIPPET on it first (in idle time; a check that needs a checker at once does not wait for that).
   */
  const build = (key: string, declarations: string, warm: boolean): Session => {
    session = undefined;
    let tools: ts.SourceFile | undefined;
    const host = inMemoryHost((languageVersion) => (tools ??= declarationsFile(key, declarations, languageVersion)));
    const program = ts.createProgram({ rootNames: [PRELUDE_FILE, TOOLS_FILE], options: OPTIONS, host, oldProgram });
    oldProgram = program;
    built++;
    const next: Session = { key, declarations, program, checks: 0, retired: false };
    if (!warm) return next;
    checkSnippet(next, WARM_SNIPPET);
    // Never with these prelude and lib files; but a checker that saw an error is not used.
    if (next.retired) return build(key, declarations, false);
    next.checks = 0;
    return next;
  };

  /** A snippet as a module file of its own, bound, ready for any checker. */
  const snippetFile = (code: string): ts.SourceFile => {
    const fileName = `/snippet-${++seq}.ts`;
    const file = ts.createSourceFile(
      fileName,
      WRAPPER_HEAD + code + WRAPPER_TAIL,
      { languageVersion: ts.ScriptTarget.ES2022, setExternalModuleIndicator: markAsModule },
      false,
      ts.ScriptKind.TS,
    );
    Object.assign(file, { path: fileName, resolvedPath: fileName, originalFileName: fileName });
    internals.bindSourceFile(file, OPTIONS);
    return file;
  };

  /** Syntax, bind and type diagnostics of one snippet, exactly as the program reports a file's own. */
  const checkSnippet = (
    s: Session,
    code: string,
  ): { file: ts.SourceFile; raw: readonly ts.Diagnostic[]; syntaxOk: boolean } => {
    const file = snippetFile(code);
    s.checks++;
    // Retired before checking: if TypeScript throws midway, this checker is not used again.
    const retire = s.retired;
    s.retired = true;
    const syntactic = s.program.getSyntacticDiagnostics(file);
    const raw = [...syntactic, ...s.program.getSemanticDiagnostics(file)];
    // A suppression comment hides an error from `raw` but not from the checker's caches; such
    // snippets always fail our own checks, and run() retires the checker for any failed check.
    s.retired = retire || raw.length > 0 || code.length > LARGE_SNIPPET || s.checks >= CHECKS_PER_CHECKER;
    return { file, raw, syntaxOk: syntactic.length === 0 };
  };

  const sessionFor = (key: string, declarations: string, warm = false): Session => {
    if (session && !session.retired && session.key === key) return session;
    session = build(key, declarations, warm);
    return session;
  };

  const run = (code: string, declarations: string, key: string): TypecheckResult => {
    const s = sessionFor(key, declarations);
    const { file, raw, syntaxOk } = checkSnippet(s, code);
    const diagnostics = raw
      .filter((d) => d.category === ts.DiagnosticCategory.Error && !SUPERSEDED.has(d.code))
      .map((d) => toDiagnostic(file, code, d.start ?? WRAPPER_HEAD.length, messageFor(d), d.code));
    if (syntaxOk) diagnostics.push(...ownChecks(file, code));
    if (diagnostics.length === 0) return { ok: true };
    s.retired = true;
    diagnostics.sort((a, b) => a.line - b.line || a.column - b.column);
    return { ok: false, diagnostics, text: report(diagnostics) };
  };

  return {
    warmUp(declarations = NO_TOOLS, key = declarations) {
      sessionFor(key, declarations, true);
    },
    check(code, declarations, key = declarations) {
      try {
        return run(code, declarations, key);
      } catch (error) {
        session = undefined;
        oldProgram = undefined;
        const d: TypecheckDiagnostic = {
          line: 1,
          column: 1,
          message: `The typechecker is unavailable (${(error as Error)?.message ?? String(error)}); the code was not run. Try again.`,
          code: OA_DIAGNOSTIC.unavailable,
          category: "error",
        };
        return { ok: false, diagnostics: [d], text: report([d]) };
      }
    },
    prepare() {
      if (!session?.retired) return false;
      try {
        session = build(session.key, session.declarations, true);
        return true;
      } catch {
        session = undefined;
        oldProgram = undefined;
        return false;
      }
    },
    practice(checks) {
      for (let i = 0; i < checks; i++) {
        if (!session) sessionFor(NO_TOOLS, NO_TOOLS, true);
        else if (session.retired) this.prepare();
        const s = session!;
        if (!this.check(practiceSnippet(practised++), s.declarations, s.key).ok) return false;
      }
      return true;
    },
    checkDeclarations(declarations) {
      // A program of its own: the snippets' programs skip checking declaration files (skipLibCheck).
      const tools = ts.createSourceFile(TOOLS_FILE, declarations, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
      const host = inMemoryHost(() => tools);
      const program = ts.createProgram({
        rootNames: [PRELUDE_FILE, TOOLS_FILE],
        options: { ...OPTIONS, skipLibCheck: false },
        host,
      });
      const raw = [...program.getSyntacticDiagnostics(tools), ...program.getSemanticDiagnostics(tools)];
      const lines = declarations.split("\n");
      return raw
        .filter((d) => d.category === ts.DiagnosticCategory.Error)
        .map((d) => {
          const { line } = tools.getLineAndCharacterOfPosition(d.start ?? 0);
          const text = cutText((lines[line] ?? "").trim(), 160, { marker: () => "…" });
          return `line ${line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")} — ${text}`;
        });
    },
    stats: () => ({
      built,
      checksOnCurrent: session?.checks ?? 0,
      ready: Boolean(session && !session.retired),
      practised,
    }),
  };
}

/** TypeScript's module-option complaints; our own moduleAccess diagnostic says it better. */
const SUPERSEDED = new Set([1323, 1343, 2307, 2792]);
/** Host globals a model may reach for; TypeScript's hint ("install @types/node") would mislead it. */
const HOST_GLOBALS = new Set([
  "process",
  "require",
  "module",
  "exports",
  "__dirname",
  "__filename",
  "Buffer",
  "global",
  "Bun",
  "Deno",
  "fetch",
  "setTimeout",
  "setInterval",
  "setImmediate",
  "clearTimeout",
  "clearInterval",
  "queueMicrotask",
  "window",
  "document",
  "navigator",
  "localStorage",
  "XMLHttpRequest",
  "WebSocket",
  "structuredClone",
  "TextEncoder",
  "TextDecoder",
  "URL",
  "URLSearchParams",
  "atob",
  "btoa",
  "crypto",
  "performance",
]);

function messageFor(d: ts.Diagnostic): string {
  const message = ts.flattenDiagnosticMessageText(d.messageText, "\n");
  const name = /^Cannot find name '([^']+)'/.exec(message)?.[1];
  if (name && HOST_GLOBALS.has(name))
    return `Cannot find name '${name}'. Snippets run in a sandbox without host globals; use the \`tools\` object (and \`console\`) only.`;
  return message;
}

/** Maps a position in the wrapped file to the model's code; positions in the wrapper are clamped to the code. */
function toDiagnostic(
  file: ts.SourceFile,
  code: string,
  start: number,
  message: string,
  codeNo: number,
): TypecheckDiagnostic {
  const { line, character } = file.getLineAndCharacterOfPosition(start);
  const codeLines = code.split("\n");
  let outLine = line; // wrapper head is file line 0, so file line n is code line n (1-based)
  let column = character + 1;
  if (line < 1) {
    outLine = 1;
    column = 1;
  } else if (line > codeLines.length) {
    outLine = codeLines.length;
    column = codeLines[codeLines.length - 1]!.length + 1;
  }
  return { line: outLine, column, message, code: codeNo, category: "error" };
}

/** Checks TypeScript does not make: the code must stay inside the wrapper and must not load modules. */
function ownChecks(file: ts.SourceFile, code: string): TypecheckDiagnostic[] {
  const out: TypecheckDiagnostic[] = [];
  const wrapper = file.statements[0];
  if (file.statements.length !== 1 || !wrapper || !ts.isFunctionDeclaration(wrapper)) {
    const stray = file.statements[1] ?? file.statements[0]!;
    out.push(
      toDiagnostic(
        file,
        code,
        stray.getStart(file),
        "Unbalanced braces: a '}' closes the snippet early. Your code is the body of one async function; keep its braces balanced.",
        OA_DIAGNOSTIC.escapesWrapper,
      ),
    );
    return out;
  }
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      out.push(
        toDiagnostic(
          file,
          code,
          node.getStart(file),
          "import() is not available: snippets cannot load modules. Call tools through the global `tools` object.",
          OA_DIAGNOSTIC.moduleAccess,
        ),
      );
    else if (ts.isMetaProperty(node) && node.keywordToken === ts.SyntaxKind.ImportKeyword)
      out.push(
        toDiagnostic(
          file,
          code,
          node.getStart(file),
          "import.meta is not available in snippets.",
          OA_DIAGNOSTIC.moduleAccess,
        ),
      );
    ts.forEachChild(node, visit);
  };
  visit(wrapper);
  out.push(...suppressionComments(file, code));
  return out;
}

const SUPPRESSION = /@ts-(ignore|expect-error|nocheck)\b/;

/** Comments that would switch the typecheck off for a line or the file (text in strings is not a comment). */
function suppressionComments(file: ts.SourceFile, code: string): TypecheckDiagnostic[] {
  const out: TypecheckDiagnostic[] = [];
  if (!SUPPRESSION.test(code)) return out;
  const seen = new Set<number>();
  const visitToken = (node: ts.Node): void => {
    if (node.getChildCount(file) > 0) {
      for (const child of node.getChildren(file)) visitToken(child);
      return;
    }
    const ranges = [
      ...(ts.getLeadingCommentRanges(file.text, node.pos) ?? []),
      ...(ts.getTrailingCommentRanges(file.text, node.end) ?? []),
    ];
    for (const range of ranges) {
      if (seen.has(range.pos)) continue;
      seen.add(range.pos);
      const directive = SUPPRESSION.exec(file.text.slice(range.pos, range.end))?.[0];
      if (directive)
        out.push(
          toDiagnostic(
            file,
            code,
            range.pos,
            `${directive} is not allowed in snippets: fix the types instead (e.g. cast with \`as\`).`,
            OA_DIAGNOSTIC.suppression,
          ),
        );
    }
  };
  visitToken(file);
  return out;
}

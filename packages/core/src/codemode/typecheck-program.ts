/**
 * The TypeScript checker itself (compiler API, in-memory host). It runs inside the checker child
 * process (typecheck-child.ts); the gateway talks to it through createTypechecker (typecheck.ts) and
 * never loads TypeScript itself. Only one-shot tools (the `doctor` command, tests of declarations)
 * use it in process.
 */
import { dirname, join } from "node:path";
import ts from "typescript";
import { PRELUDE } from "./ambient-declarations.ts";
import {
  OA_DIAGNOSTIC,
  reportDiagnostics as report,
  type TypecheckDiagnostic,
  type TypecheckResult,
} from "./typecheck-diagnostics.ts";

// No return annotation: `Promise<unknown>` would make TS2355 demand a `return` in every snippet.
const WRAPPER_HEAD = "async function __run() {\n";
const WRAPPER_TAIL = "\n}\n";
const SNIPPET = "/snippet.ts";
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
};

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

export interface ProgramChecker {
  /** Parses the standard library and runs one check, so the first real check is fast. */
  warmUp(): void;
  /**
   * Typechecks a snippet (a function body) against `declarations` (text from generateDeclarations).
   * `key` (e.g. the declarations' hash) names the text in the parsed-declarations cache; default: the text.
   */
  check(code: string, declarations: string, key?: string): TypecheckResult;
}

/** Parsed declaration files kept per checker, by key (the tool tree rarely changes). */
const DECLARATION_CACHE = 4;

export function createProgramChecker(): ProgramChecker {
  let oldProgram: ts.Program | undefined;
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

  const run = (code: string, declarations: string, key: string): TypecheckResult => {
    const snippetText = WRAPPER_HEAD + code + WRAPPER_TAIL;
    let snippet: ts.SourceFile | undefined;
    let tools: ts.SourceFile | undefined;
    const host: ts.CompilerHost = {
      getSourceFile(fileName, languageVersion) {
        if (fileName === SNIPPET)
          return (snippet ??= ts.createSourceFile(SNIPPET, snippetText, languageVersion, false, ts.ScriptKind.TS));
        if (fileName === TOOLS_FILE) return (tools ??= declarationsFile(key, declarations, languageVersion));
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
      fileExists: (f) =>
        f === SNIPPET || f === TOOLS_FILE || f === PRELUDE_FILE || (f.startsWith(libDir) && ts.sys.fileExists(f)),
      readFile: (f) => (f.startsWith(libDir) ? ts.sys.readFile(f) : undefined),
      directoryExists: (d) => d === "/" || d.startsWith(libDir),
      getDirectories: () => [],
    };
    const program = ts.createProgram({
      rootNames: [PRELUDE_FILE, TOOLS_FILE, SNIPPET],
      options: OPTIONS,
      host,
      oldProgram,
    });
    oldProgram = program;
    const file = program.getSourceFile(SNIPPET)!;
    const syntactic = program.getSyntacticDiagnostics(file);
    const raw = [...syntactic, ...program.getSemanticDiagnostics(file)];
    const diagnostics = raw
      .filter((d) => d.category === ts.DiagnosticCategory.Error && !SUPERSEDED.has(d.code))
      .map((d) => toDiagnostic(file, code, d.start ?? WRAPPER_HEAD.length, messageFor(d), d.code));
    if (syntactic.length === 0) diagnostics.push(...ownChecks(file, code));
    if (diagnostics.length === 0) return { ok: true };
    diagnostics.sort((a, b) => a.line - b.line || a.column - b.column);
    return { ok: false, diagnostics, text: report(diagnostics) };
  };

  return {
    warmUp() {
      run("return 1;", "declare const tools: {};\n", "warm-up");
    },
    check(code, declarations, key = declarations) {
      try {
        return run(code, declarations, key);
      } catch (error) {
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

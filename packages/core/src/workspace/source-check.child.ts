/**
 * Runs in a child process (never in the gateway): parses and typechecks a tool module the
 * assistant wants to write, lists its npm imports and checks that it exports tools. Reads one JSON
 * request on stdin, writes one JSON result on stdout.
 */
import { existsSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import ts from "typescript";
import { checkComputedMembers, checkLoads } from "./load-rule.ts";

interface Request {
  file: string;
  source: string;
  sdkEntry: string;
  typesDir: string;
}

const req = JSON.parse(await Bun.stdin.text()) as Request;
const problems: string[] = [];
const sourceFile = ts.createSourceFile(req.file, req.source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);

const loads = checkLoads(sourceFile);
problems.push(...loads.problems);
const packages = new Set(loads.packages);

// Exports: every exported value must be a tool (defineTool), a plugin (definePlugin) or a group of them.
const isToolExpr = (e: ts.Expression): boolean => {
  if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e))
    return isToolExpr(e.expression);
  if (ts.isCallExpression(e) && ts.isIdentifier(e.expression))
    return e.expression.text === "defineTool" || e.expression.text === "definePlugin";
  if (ts.isObjectLiteralExpression(e))
    return (
      e.properties.length > 0 && e.properties.every((p) => ts.isPropertyAssignment(p) && isToolExpr(p.initializer))
    );
  return false;
};
let exported = 0;
for (const stmt of sourceFile.statements) {
  if (ts.isExportAssignment(stmt)) {
    exported++;
    if (!isToolExpr(stmt.expression))
      problems.push(
        `line ${line(stmt)}: the default export must be defineTool({ ... }), definePlugin({ ... }) or an object of them`,
      );
  } else if (ts.isVariableStatement(stmt) && stmt.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
    for (const d of stmt.declarationList.declarations) {
      exported++;
      if (!d.initializer || !isToolExpr(d.initializer))
        problems.push(
          `line ${line(d)}: export "${d.name.getText()}" must be defineTool({ ... }) or an object of tools`,
        );
    }
  } else if (
    (ts.isFunctionDeclaration(stmt) || ts.isClassDeclaration(stmt)) &&
    stmt.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
  ) {
    problems.push(`line ${line(stmt)}: export only tools (defineTool) from a tool file`);
  } else if (ts.isExportDeclaration(stmt))
    problems.push(`line ${line(stmt)}: re-exports are not allowed in a tool file; define the tools here`);
}
if (exported === 0) problems.push("the file exports no tool: add `export default defineTool({ ... })`");

// A file that loads something it may not is not compiled at all: nothing it names is resolved or read.
const diagnostics = loads.problems.length ? [] : typecheck();

for (const d of diagnostics.slice(0, 20)) {
  const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
  problems.push(
    `${where ? `line ${where.line + 1}:${where.character + 1}: ` : ""}TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
  );
}
if (diagnostics.length > 20) problems.push(`… and ${diagnostics.length - 20} more type errors`);

process.stdout.write(JSON.stringify({ problems, packages: [...packages].sort() }));

function typecheck(): ts.Diagnostic[] {
  // Typecheck against the SDK (and bun-types), with not-yet-installed packages typed as any.
  const shim = join(dirname(req.file), "__oa_pending_modules.d.ts");
  // Packages not installed yet (they are installed after approval) are typed as `any` for now.
  const pending = [...packages].filter((p) => !isInstalled(p, dirname(req.file)));
  const shimText = pending
    .map(
      (p) =>
        `declare module ${JSON.stringify(p)} { const x: any; export = x; }\ndeclare module ${JSON.stringify(`${p}/*`)} { const x: any; export = x; }`,
    )
    .join("\n");
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    types: ["bun-types"],
    typeRoots: [req.typesDir],
    paths: { "@openassistant/sdk": [req.sdkEntry] },
  };
  const host = ts.createCompilerHost(options);
  // Every import of the file is allowed by now; what they resolve to may still reference other files
  // (a package's `/// <reference path>`): nothing outside these roots is looked at or read.
  const roots = [dirname(ts.getDefaultLibFilePath(options)), req.typesDir, dirname(dirname(req.sdkEntry))].map(
    (r) => r + sep,
  );
  const readable = (f: string) =>
    f === req.file || f === shim || f.includes(`${sep}node_modules${sep}`) || roots.some((r) => f.startsWith(r));
  const read = host.readFile.bind(host);
  host.readFile = (f) => (f === req.file ? req.source : f === shim ? shimText : readable(f) ? read(f) : undefined);
  const exists = host.fileExists.bind(host);
  host.fileExists = (f) => f === req.file || f === shim || (readable(f) && exists(f));
  const dirExists = host.directoryExists?.bind(host);
  host.directoryExists = (d) => readable(d + sep) && (dirExists?.(d) ?? true);
  const program = ts.createProgram([req.file, shim], options, host);
  problems.push(...checkComputedMembers(program.getSourceFile(req.file)!, program.getTypeChecker()));
  // Only the file's own diagnostics: never another file's text.
  return [...program.getSyntacticDiagnostics(), ...program.getSemanticDiagnostics()].filter(
    (d) => d.file?.fileName === req.file || !d.file,
  );
}

function line(node: ts.Node): number {
  return sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1;
}

function isInstalled(pkg: string, from: string): boolean {
  for (let d = from; ; d = dirname(d)) {
    if (existsSync(join(d, "node_modules", pkg, "package.json"))) return true;
    if (dirname(d) === d) return false;
  }
}

/**
 * Runs in a child process (never in the gateway): parses and typechecks a tool module the
 * assistant wants to write, lists its npm imports and checks that it exports tools. Reads one JSON
 * request on stdin, writes one JSON result on stdout.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import ts from "typescript";

interface Request {
  file: string;
  source: string;
  sdkEntry: string;
  typesDir: string;
}

const req = JSON.parse(await Bun.stdin.text()) as Request;
const problems: string[] = [];
const sourceFile = ts.createSourceFile(req.file, req.source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);

const imports: string[] = [];
for (const stmt of sourceFile.statements) {
  const spec =
    (ts.isImportDeclaration(stmt) || ts.isExportDeclaration(stmt)) &&
    stmt.moduleSpecifier &&
    ts.isStringLiteral(stmt.moduleSpecifier)
      ? stmt.moduleSpecifier.text
      : undefined;
  if (spec !== undefined) imports.push(spec);
  if (ts.isImportDeclaration(stmt) && stmt.attributes)
    problems.push(`line ${line(stmt)}: import attributes (with { ... }) are not allowed in tool files`);
}
ts.forEachChild(sourceFile, function visit(node): void {
  if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
    problems.push(
      `line ${line(node)}: dynamic import() is not allowed; use a static import so the operator sees what the tool loads`,
    );
  if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "require")
    problems.push(`line ${line(node)}: require() is not allowed; use a static import`);
  ts.forEachChild(node, visit);
});

const packages = new Set<string>();
for (const spec of imports) {
  if (spec.startsWith("node:") || (spec.startsWith("bun:") && spec !== "bun:ffi")) continue;
  if (spec === "bun:ffi") problems.push(`imports "bun:ffi": native code is not allowed in assistant-written tools`);
  else if (spec === "@openassistant/sdk" || spec === "zod") continue;
  else if (spec.startsWith("@openassistant/"))
    problems.push(`imports "${spec}": tools may import only @openassistant/sdk from OpenAssistant`);
  else if (spec.startsWith(".") || spec.startsWith("/"))
    problems.push(
      `imports "${spec}": assistant-written tools are single files; relative and absolute imports are not allowed`,
    );
  else if (/^[a-z]+:/i.test(spec))
    problems.push(`imports "${spec}": only npm packages, node: and bun: modules can be imported`);
  else packages.add(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!);
}

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
const read = host.readFile.bind(host);
host.readFile = (f) => (f === req.file ? req.source : f === shim ? shimText : read(f));
const exists = host.fileExists.bind(host);
host.fileExists = (f) => f === req.file || f === shim || exists(f);
const program = ts.createProgram([req.file, shim], options, host);
const diagnostics = [...program.getSyntacticDiagnostics(), ...program.getSemanticDiagnostics()].filter(
  (d) => d.file?.fileName === req.file || !d.file,
);
for (const d of diagnostics.slice(0, 20)) {
  const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
  problems.push(
    `${where ? `line ${where.line + 1}:${where.character + 1}: ` : ""}TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
  );
}
if (diagnostics.length > 20) problems.push(`… and ${diagnostics.length - 20} more type errors`);

process.stdout.write(JSON.stringify({ problems, packages: [...packages].sort() }));

function line(node: ts.Node): number {
  return sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1;
}

function isInstalled(pkg: string, from: string): boolean {
  for (let d = from; ; d = dirname(d)) {
    if (existsSync(join(d, "node_modules", pkg, "package.json"))) return true;
    if (dirname(d) === d) return false;
  }
}

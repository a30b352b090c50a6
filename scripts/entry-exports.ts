/**
 * Which names a package's entries export, and who imports them: the data behind the rule that an
 * entry exports only what something outside its package imports (`boundaries.test.ts`). Read from
 * the syntax of each file (no type checker): `export *` is followed through relative files, and
 * type-only imports, `import("…").Name` types, namespace imports and `await import("…")` count.
 */
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import type { SourceFile } from "./boundaries.ts";

const root = resolve(import.meta.dir, "..");

/** One public entry of a package: `@openassistant/core/receipts` → `packages/core/src/receipts/index.ts`. */
export interface Entry {
  /** The package folder, e.g. `packages/core`. */
  readonly pkg: string;
  readonly specifier: string;
  /** The entry's file, relative to the repository root. */
  readonly file: string;
}

/** What one file imports from one specifier: the names, or `"*"` when it may use any of them. */
export interface ImportUse {
  readonly spec: string;
  readonly names: ReadonlySet<string> | "*";
}

/** The entries a package.json `exports` map names (a `./*` pattern is not an entry of its own). */
export async function packageEntries(pkg: string): Promise<Entry[]> {
  const json = (await Bun.file(join(root, pkg, "package.json")).json()) as {
    name: string;
    exports?: Record<string, string | Record<string, string>>;
  };
  const out: Entry[] = [];
  for (const [key, target] of Object.entries(json.exports ?? {})) {
    if (key.includes("*")) continue;
    const specifier = key === "." ? json.name : `${json.name}/${key.slice(2)}`;
    // A conditional export (`@openassistant/client`: Bun reads the source, Node the build) is its source file.
    const file = typeof target === "string" ? target : (target.bun ?? target.types ?? target.default ?? "");
    out.push({ pkg, specifier, file: join(pkg, file) });
  }
  return out;
}

function parse(file: SourceFile): ts.SourceFile {
  return ts.createSourceFile(file.path, file.text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

function hasExportModifier(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && !!ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

function bindingNames(name: ts.BindingName, out: Set<string>): void {
  if (ts.isIdentifier(name)) out.add(name.text);
  else for (const el of name.elements) if (!ts.isOmittedExpression(el)) bindingNames(el.name, out);
}

/**
 * The names a file exports, following `export * from "./x.ts"` into relative files. A star
 * re-export of another package cannot be listed: it shows as `*<specifier>`.
 */
export function exportedNames(
  path: string,
  files: ReadonlyMap<string, SourceFile>,
  seen = new Set<string>(),
): Set<string> {
  const out = new Set<string>();
  const file = files.get(path);
  if (!file || seen.has(path)) return out;
  seen.add(path);
  for (const st of parse(file).statements) {
    if (ts.isExportDeclaration(st)) {
      const spec = st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier) ? st.moduleSpecifier.text : undefined;
      if (st.exportClause && ts.isNamedExports(st.exportClause)) {
        for (const el of st.exportClause.elements) out.add(el.name.text);
      } else if (st.exportClause && ts.isNamespaceExport(st.exportClause)) {
        out.add(st.exportClause.name.text);
      } else if (spec?.startsWith(".")) {
        const target = relative(root, resolve(root, dirname(path), spec));
        for (const name of exportedNames(target, files, seen)) if (name !== "default") out.add(name);
      } else if (spec) {
        out.add(`*${spec}`);
      }
    } else if (ts.isExportAssignment(st)) {
      out.add("default");
    } else if (hasExportModifier(st)) {
      const isDefault = ts.getModifiers(st as ts.HasModifiers)?.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
      if (isDefault) out.add("default");
      else if (ts.isVariableStatement(st)) for (const d of st.declarationList.declarations) bindingNames(d.name, out);
      else if ("name" in st && st.name && ts.isIdentifier(st.name as ts.Node)) out.add((st.name as ts.Identifier).text);
    }
  }
  return out;
}

/** The names read from `ns` in a file: `ns.a`, `ns.A` in a type, `const { b } = ns`. `"*"` if `ns` escapes. */
function namesReadFrom(ns: string, sf: ts.SourceFile, declaration: ts.Node): Set<string> | "*" {
  const out = new Set<string>();
  let escapes = false;
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && node.text === ns && node.parent !== declaration) {
      const p = node.parent;
      if (ts.isPropertyAccessExpression(p) && p.expression === node) out.add(p.name.text);
      else if (ts.isQualifiedName(p) && p.left === node) out.add(p.right.text);
      else if (ts.isVariableDeclaration(p) && p.initializer === node && ts.isObjectBindingPattern(p.name)) {
        for (const el of p.name.elements) {
          const key = el.propertyName ?? el.name;
          if (ts.isIdentifier(key)) out.add(key.text);
          else escapes = true;
        }
      } else if (!(ts.isImportSpecifier(p) || ts.isNamespaceImport(p))) escapes = true;
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return escapes ? "*" : out;
}

/** What `import("spec")` takes: `(await import(x)).a`, `const { a } = await import(x)`, `const m = await import(x)` then `m.a`. */
function dynamicImportUse(call: ts.CallExpression, sf: ts.SourceFile): Set<string> | "*" {
  let node: ts.Node = call;
  while (ts.isParenthesizedExpression(node.parent) || ts.isAwaitExpression(node.parent)) node = node.parent;
  const p = node.parent;
  if (ts.isPropertyAccessExpression(p) && p.expression === node) return new Set([p.name.text]);
  if (ts.isVariableDeclaration(p) && p.initializer === node) {
    if (ts.isObjectBindingPattern(p.name)) {
      const out = new Set<string>();
      for (const el of p.name.elements) {
        const key = el.propertyName ?? el.name;
        if (!ts.isIdentifier(key)) return "*";
        out.add(key.text);
      }
      return out;
    }
    if (ts.isIdentifier(p.name)) return namesReadFrom(p.name.text, sf, p.name);
  }
  return "*";
}

/** Every import (and re-export) in a file with the names it takes, type-only ones included. */
export function importUses(file: SourceFile): ImportUse[] {
  const sf = parse(file);
  const out: ImportUse[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const spec = node.moduleSpecifier.text;
      const clause = node.importClause;
      const names = new Set<string>();
      let all = false;
      if (clause?.name) names.add("default");
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) {
        for (const el of bindings.elements) names.add((el.propertyName ?? el.name).text);
      } else if (bindings && ts.isNamespaceImport(bindings)) {
        const read = namesReadFrom(bindings.name.text, sf, bindings);
        if (read === "*") all = true;
        else for (const n of read) names.add(n);
      }
      out.push({ spec, names: all ? "*" : names });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.exportClause;
      out.push({
        spec: node.moduleSpecifier.text,
        names:
          clause && ts.isNamedExports(clause)
            ? new Set(clause.elements.map((el) => (el.propertyName ?? el.name).text))
            : "*",
      });
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      let q = node.qualifier;
      while (q && ts.isQualifiedName(q)) q = q.left;
      out.push({ spec: node.argument.literal.text, names: q ? new Set([q.text]) : "*" });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      out.push({ spec: node.arguments[0].text, names: dynamicImportUse(node, sf) });
    }
    // `import("…")` (a type or a dynamic import) may sit anywhere; static imports are top-level.
    if (deep) ts.forEachChild(node, visit);
  };
  const deep = /\bimport\s*\(/.test(file.text);
  for (const st of sf.statements) visit(st);
  return out;
}

/** How a package's entries are judged. */
export interface EntryPolicy {
  /** Its consumers are tests (a test-support package): any importer outside it counts. */
  readonly testSupport?: boolean;
  /**
   * Its entry is public API for authors outside the repository: a name counts as used when code
   * outside the package imports it by name or this doc names it in backticks. A wholesale import
   * (`import * as sdk` handed on whole) does not count: it is how authors get the entry, not a use.
   */
  readonly documentedIn?: string;
}

/**
 * Packages judged other than by the default (a name is used when production code outside the
 * package imports it). Every workspace package with `exports` is covered; apps have none, and a
 * plugin's `openassistant.entry` is loaded by the plugin loader, not imported.
 */
export const ENTRY_PACKAGES: Readonly<Record<string, EntryPolicy>> = {
  "packages/sdk": { documentedIn: "docs/plugins.md" },
  "packages/client": { documentedIn: "packages/client/README.md" },
  "packages/testkit": { testSupport: true },
  "packages/discord-fake": { testSupport: true },
};

/** The entries of every workspace package. */
export async function repositoryEntries(): Promise<Entry[]> {
  const pkgs: string[] = [];
  for await (const path of new Bun.Glob("{packages,apps,integrations}/*/package.json").scan({ cwd: root }))
    pkgs.push(dirname(path));
  return (await Promise.all(pkgs.sort().map(packageEntries))).flat();
}

/** The docs that list public names (`EntryPolicy.documentedIn`), by path. */
export async function entryDocs(): Promise<Map<string, string>> {
  const docs = new Map<string, string>();
  for (const { documentedIn } of Object.values(ENTRY_PACKAGES))
    if (documentedIn) docs.set(documentedIn, await Bun.file(join(root, documentedIn)).text());
  return docs;
}

/** An entry that only tests may import: `@openassistant/core/testing`. */
export function isTestingEntry(specifier: string): boolean {
  return specifier.endsWith("/testing");
}

/** Who imports an entry's names from outside its package; `wholeBy`: a wholesale import, by production or tests only. */
interface EntryUse {
  readonly prod: Set<string>;
  readonly test: Set<string>;
  wholeBy?: "prod" | "test";
}

/** Every entry's uses from outside its package (the specifier, or the entry's file by relative path). */
function entryUses(
  files: readonly SourceFile[],
  entries: readonly Entry[],
  isProduction: (path: string) => boolean,
): Map<string, EntryUse> {
  const bySpec = new Map(entries.map((e) => [e.specifier, e]));
  const byFile = new Map(entries.map((e) => [e.file, e]));
  const used = new Map<string, EntryUse>(entries.map((e) => [e.specifier, { prod: new Set(), test: new Set() }]));
  for (const file of files) {
    // Parsing is the cost: skip files that name no package and no index file.
    if (!file.text.includes("@openassistant/") && !file.text.includes("index.ts")) continue;
    for (const use of importUses(file)) {
      // Benchmarks and scripts may import an entry's file by relative path.
      const entry = use.spec.startsWith(".")
        ? byFile.get(relative(root, resolve(root, dirname(file.path), use.spec)))
        : bySpec.get(use.spec);
      if (!entry || file.path.startsWith(`${entry.pkg}/`)) continue;
      const u = used.get(entry.specifier)!;
      const prod = isProduction(file.path);
      if (use.names !== "*") for (const n of use.names) (prod ? u.prod : u.test).add(n);
      else if (!ENTRY_PACKAGES[entry.pkg]?.documentedIn) u.wholeBy = prod || u.wholeBy === "prod" ? "prod" : "test";
    }
  }
  return used;
}

/**
 * One line per name an entry exports that nothing outside its package imports as the rule asks:
 * a normal entry's names by production code (a name only tests import belongs in the package's
 * `/testing` entry), a `/testing` entry's or a test-support package's names by anything, the
 * SDK's by anything or its authors' doc. Each line says what to do.
 */
export function unusedEntryExports(
  files: readonly SourceFile[],
  entries: readonly Entry[],
  isProduction: (path: string) => boolean,
  docs: ReadonlyMap<string, string> = new Map(),
): string[] {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const used = entryUses(files, entries, isProduction);
  const out: string[] = [];
  for (const entry of entries) {
    const policy = ENTRY_PACKAGES[entry.pkg] ?? {};
    const u = used.get(entry.specifier)!;
    const doc = policy.documentedIn ? (docs.get(policy.documentedIn) ?? "") : "";
    const testsSuffice = policy.testSupport || isTestingEntry(entry.specifier);
    const testingEntry = entries.find((e) => e.pkg === entry.pkg && isTestingEntry(e.specifier));
    for (const name of exportedNames(entry.file, byPath)) {
      const byTests = u.wholeBy === "test" || u.test.has(name);
      if (u.wholeBy === "prod" || u.prod.has(name) || (testsSuffice && byTests)) continue;
      if (doc.includes(`\`${name}\``)) continue;
      const where = `${entry.file} (${entry.specifier})`;
      if (name.startsWith("*")) {
        out.push(`${where} re-exports all of "${name.slice(1)}" — name what it exports instead`);
      } else if (byTests && !policy.documentedIn) {
        const testing = testingEntry
          ? `${testingEntry.specifier} (${testingEntry.file})`
          : `a "./testing" entry of ${entry.pkg}`;
        out.push(
          `${where} exports "${name}", which only tests outside ${entry.pkg} import — export it from ${testing} instead and import it from there`,
        );
      } else {
        out.push(
          `${where} exports "${name}", which nothing outside ${entry.pkg} imports — drop it from the entry (files inside the package import it by relative path)${policy.documentedIn ? `, or document it for authors in ${policy.documentedIn}` : ""}; if nothing uses it at all, delete it`,
        );
      }
    }
  }
  return out;
}

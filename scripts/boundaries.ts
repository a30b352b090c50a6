/**
 * Package boundaries, checked by `boundaries.test.ts`: apps and other packages import core only
 * through its public entries, no file reaches into another package by relative path, and
 * production source never imports test support (testkit, discord-fake, a `/testing` entry). Which
 * names an entry may export is checked in `entry-exports.ts`. Also: production code reads the
 * receipts table through the receipt store, except the files listed in RECEIPT_SQL_READERS, and no
 * production code outside a store folder (`…/sqlite/`) or `packages/core/src/db/` touches SQL;
 * one-way arrows between folders (FOLDER_ARROWS: the loader and the source kinds, the gateway and
 * its surfaces), and core's code names no chat surface and no model (CORE_MUST_NOT_NAME).
 */
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");

export interface SourceFile {
  /** Path relative to the repository root. */
  readonly path: string;
  readonly text: string;
}

/** The `exports` of packages/core/package.json as specifiers: `@openassistant/core/receipts`, … */
export async function corePublicEntries(): Promise<Set<string>> {
  const pkg = (await Bun.file(join(root, "packages/core/package.json")).json()) as { exports: Record<string, string> };
  return new Set(
    Object.keys(pkg.exports).map((k) => (k === "." ? "@openassistant/core" : `@openassistant/core/${k.slice(2)}`)),
  );
}

/** The workspace folder that owns a repository path: `packages/core`, `apps/gateway`, … or undefined. */
function ownerOf(path: string): string | undefined {
  const m = /^(packages|apps|integrations)\/[^/]+/.exec(path);
  return m?.[0];
}

/** Code the product runs: not a test, test support, a benchmark or a script. */
export function isProductionSource(path: string): boolean {
  return !isTestSupport(path) && !isTooling(path);
}

function isTestSupport(path: string): boolean {
  return (
    /\.test\.ts$|\.e2e\.test\.ts$|(^|\/)test\/|(^|\/)fixtures\//.test(path) || path.startsWith("packages/testkit/")
  );
}

/** Files whose job is measuring or checking: they may use test support. */
function isTooling(path: string): boolean {
  return path.startsWith("bench/") || path.startsWith("scripts/") || path.startsWith("packages/discord-fake/");
}

const transpiler = new Bun.Transpiler({ loader: "ts" });

/** The module specifiers a file imports; a fixture that does not parse on purpose imports nothing. */
function importsOf(file: SourceFile): string[] {
  try {
    return transpiler.scanImports(file.text.replace(/^#!.*/, "")).map((i) => i.path);
  } catch (e) {
    if (/(^|\/)fixtures\//.test(file.path)) return [];
    throw new Error(`${file.path}: cannot be parsed (${e instanceof Error ? e.message : e})`);
  }
}

/** One line per broken rule: `file: imports "x" — why`. */
export function boundaryViolations(files: readonly SourceFile[], coreEntries: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const file of files) {
    const owner = ownerOf(file.path);
    const production = !isTestSupport(file.path) && !isTooling(file.path);
    for (const spec of importsOf(file)) {
      if (spec.startsWith("@openassistant/core") && owner !== "packages/core" && !coreEntries.has(spec)) {
        out.push(
          `${file.path}: imports "${spec}" — not a public entry of @openassistant/core (see its package.json exports)`,
        );
      }
      if (spec.startsWith(".")) {
        const target = relative(root, resolve(root, dirname(file.path), spec));
        const targetOwner = ownerOf(target);
        // Benchmarks and scripts measure internals on purpose (the raw sandbox, one store): they may reach in.
        if (targetOwner && targetOwner !== owner && !isTooling(file.path)) {
          out.push(
            `${file.path}: imports "${spec}" — reaches into ${targetOwner} by relative path; use its package entry`,
          );
        }
        if (production && isTestSupport(target)) {
          out.push(`${file.path}: imports "${spec}" — production source must not import test support`);
        }
      }
      if (
        production &&
        (/^@openassistant\/(testkit|discord-fake)/.test(spec) || /^@openassistant\/.*\/testing$/.test(spec))
      ) {
        out.push(`${file.path}: imports "${spec}" — production source must not import test support`);
      }
    }
  }
  return out;
}

/** Every TypeScript file the repository tracks, outside node_modules. */
export async function repositorySources(): Promise<SourceFile[]> {
  const files: SourceFile[] = [];
  for await (const path of new Bun.Glob("{packages,apps,integrations,bench,scripts}/**/*.ts").scan({ cwd: root })) {
    if (path.includes("node_modules/")) continue;
    files.push({ path, text: await Bun.file(join(root, path)).text() });
  }
  return files;
}

/**
 * Production files that read the receipts table with their own SQL, and why that is safe: the
 * gateway's store keeps receipts in its journal for up to ~50 ms, so such a reader must call the
 * store's `sync()` first.
 */
export const RECEIPT_SQL_READERS: Readonly<Record<string, string>> = {};

/** One line per production file outside the receipt store that reads the receipts table unlisted. */
export function receiptSqlReaders(files: readonly SourceFile[]): string[] {
  const out: string[] = [];
  for (const file of files) {
    if (isTestSupport(file.path) || isTooling(file.path)) continue;
    if (file.path.startsWith("packages/core/src/receipts/")) continue;
    // SQL keywords in capitals, as this code base writes them (prose like "from receipts" is not SQL).
    if (!/\b(FROM|JOIN)\s+receipts\b/.test(file.text) || file.path in RECEIPT_SQL_READERS) continue;
    out.push(
      `${file.path}: reads the receipts table with its own SQL — read through the ReceiptStore, or call its sync() before the query and list the file in RECEIPT_SQL_READERS (scripts/boundaries.ts)`,
    );
  }
  return out;
}

/**
 * One-way arrows between folders of a package: production code of `from` never imports `to` (a
 * folder, or a pattern of files). The tool sources own their contract (sources/kind.ts) and the
 * loader in plugins/ uses it, never back; the loader and the config take the kinds from the registry
 * (sources/kinds.ts), never one kind by name.
 */
export const FOLDER_ARROWS: readonly {
  readonly from: string;
  readonly to: string | RegExp;
  readonly why: string;
}[] = [
  {
    from: "packages/core/src/sources/",
    to: "packages/core/src/plugins/",
    why: "the source kinds own their contract (sources/kind.ts); the loader in plugins/ imports them, never back",
  },
  {
    from: "packages/core/src/config/",
    to: "packages/core/src/plugins/",
    why: "the config schema takes each source kind's section from sources/kinds.ts, never from the loader",
  },
  {
    from: "packages/core/src/",
    to: /^packages\/core\/src\/sources\/[^/]+\/kind\.ts$/,
    why: "a kind is registered in sources/kinds.ts and reached through it; the loader and the config never name one by hand",
  },
  ...["apps/gateway/src/console/", "apps/gateway/src/cli/", "apps/gateway/src/gateway.ts"].map((from) => ({
    from,
    to: "apps/gateway/src/surfaces/discord/",
    why: "a surface is reached through its line in surfaces/registry.ts (its section, operators, checks, start), never imported",
  })),
];

/** The registry is where kinds are named. */
function isKindRegistry(path: string, to: string | RegExp): boolean {
  return typeof to !== "string" && path === "packages/core/src/sources/kinds.ts";
}

function arrowHits(to: string | RegExp, target: string): boolean {
  return typeof to === "string" ? target.startsWith(to) : to.test(target);
}

/** Every specifier a file names in `from "…"` or `import("…")`, type-only imports too (the transpiler drops those). */
function importsWithTypesOf(file: SourceFile): string[] {
  return [...file.text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)["']([^"']+)["']/g)].map((m) => m[1]!);
}

/** One line per production import (type-only ones included) that goes against a FOLDER_ARROWS arrow. */
export function folderArrowViolations(files: readonly SourceFile[]): string[] {
  const out: string[] = [];
  for (const file of files) {
    if (isTestSupport(file.path) || isTooling(file.path)) continue;
    const arrows = FOLDER_ARROWS.filter((a) => file.path.startsWith(a.from));
    if (arrows.length === 0) continue;
    for (const spec of importsWithTypesOf(file)) {
      if (!spec.startsWith(".")) continue;
      const target = relative(root, resolve(root, dirname(file.path), spec));
      for (const a of arrows)
        if (arrowHits(a.to, target) && !isKindRegistry(file.path, a.to))
          out.push(`${file.path}: imports "${spec}" — ${target} must not be imported here: ${a.why}`);
    }
  }
  return out;
}

/** Where SQL may be written: a backend's own folder, and the database basics. */
function isStoreFolder(path: string): boolean {
  return /(^|\/)(sqlite|postgres)\//.test(path) || path.startsWith("packages/core/src/db/");
}

/**
 * SQL in code: an import of `bun:sqlite`, of Bun's PostgreSQL client (`SQL` from "bun") or of `pg`, a statement run on a database handle, or a statement in
 * a string (SQL keywords in capitals, as this code base writes them; HogQL sent to PostHog is a
 * query language of another service, not our storage, and is not written `SELECT … FROM` inside
 * a call on a handle).
 */
const SQL_IN_CODE = [
  /from\s+["']bun:sqlite["']/,
  /import\s*(type\s*)?\{[^}]*\bSQL\b[^}]*\}\s*from\s+["']bun["']/,
  /from\s+["']pg["']/,
  /\b(db|database|raw)\.(prepare|query|exec|run|transaction)\(/,
  /["'`]\s*(SELECT\s[^"'`]*\sFROM\s+(receipts|approvals|approval_rules|sessions|messages|turns|turn_events|console_run_code|discord_\w+|sqlite_master)\b|INSERT\s+(OR\s+\w+\s+)?INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|CREATE\s+(TABLE|INDEX|TRIGGER)\s)/,
];

/** One line per production file outside the store folders that touches SQL. */
export function sqlOutsideStores(files: readonly SourceFile[]): string[] {
  const out: string[] = [];
  for (const file of files) {
    if (isTestSupport(file.path) || isTooling(file.path) || isStoreFolder(file.path)) continue;
    const hit = SQL_IN_CODE.find((re) => re.test(file.text));
    if (!hit) continue;
    out.push(
      `${file.path}: touches SQL (${hit.exec(file.text)![0].trim()}) outside a store — put it behind a store port, in the backend's folder (e.g. receipts/sqlite/), see docs/CONTRIBUTING.md "A new storage backend"`,
    );
  }
  return out;
}

/**
 * What core's production code must not name, outside comments: the chat surfaces and the models
 * are the gateway's (a surface registers in apps/gateway/src/surfaces/registry.ts with its config
 * section; the model capability table and default model are in apps/gateway/src/model/). Comments
 * may explain a limit by where it comes from ("under Discord's 10 MiB per file").
 */
export const CORE_MUST_NOT_NAME: readonly { readonly pattern: RegExp; readonly why: string }[] = [
  { pattern: /discord/i, why: "Discord belongs to its surface (apps/gateway/src/surfaces/discord/)" },
  {
    pattern: /\bclaude-[a-z0-9]/i,
    why: "model names belong to the gateway's model folder (apps/gateway/src/model/)",
  },
];

/** The code of a TypeScript file without its comments: every token's text, one per line. */
async function codeWithoutComments(file: SourceFile): Promise<string> {
  const ts = (await import("typescript")).default;
  const source = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: import("typescript").Node): void => {
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
    const children = node.getChildren(source);
    if (children.length === 0) out.push(node.getText(source));
    else for (const child of children) visit(child);
  };
  visit(source);
  return out.join("\n");
}

/** One line per production file of core that names what CORE_MUST_NOT_NAME lists, in code (not comments). */
export async function coreNamesWhatIsNotItsOwn(files: readonly SourceFile[]): Promise<string[]> {
  const out: string[] = [];
  for (const file of files) {
    if (!file.path.startsWith("packages/core/src/") || isTestSupport(file.path)) continue;
    const rules = CORE_MUST_NOT_NAME.filter((r) => r.pattern.test(file.text));
    if (rules.length === 0) continue;
    const code = await codeWithoutComments(file);
    for (const rule of rules) {
      const hit = rule.pattern.exec(code);
      if (hit) out.push(`${file.path}: names "${hit[0]}" in code — ${rule.why}`);
    }
  }
  return out;
}

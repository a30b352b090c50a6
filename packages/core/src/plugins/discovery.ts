import { existsSync, lstatSync, readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import type { Diagnostic } from "../config/diagnostic.ts";
import { normalizeId } from "../tools/plugin-id.ts";
import { PluginManifestError, readPluginPackage, type PluginPackage } from "./manifest.ts";
import type { ValidatorCache } from "./config-validator.ts";
import { findInstalledPackage, installedNameOf, parseSpecifier, versionSatisfies } from "./specifier.ts";
import type { BundledPlugin, Origin } from "./types.ts";

interface CandidateBase {
  readonly id: string;
  readonly origin: Origin;
  /**
   * Who owns a name, lowest first: 0 built-in, 1 named by the config (config.plugins, openapi, mcp),
   * 2 project folder, 3 global folder; within a layer, the first listed.
   */
  readonly layer: number;
  readonly source: string;
}
export interface ToolCandidate extends CandidateBase {
  readonly kind: "tool";
  readonly file: string;
}
export interface PluginCandidate extends CandidateBase {
  readonly kind: "plugin";
  readonly pkg: PluginPackage;
  readonly specifier?: string;
}
export interface BundledCandidate extends CandidateBase {
  readonly kind: "bundled";
  readonly bundled: BundledPlugin;
}
/** A plugin whose package could not even be read; reported as an error entry. */
export interface BrokenCandidate extends CandidateBase {
  readonly kind: "broken";
  readonly entryKind: "tool" | "plugin";
  readonly diagnostic: Diagnostic;
  readonly specifier?: string;
}
export type Candidate = ToolCandidate | PluginCandidate | BundledCandidate | BrokenCandidate;

const TOOL_FILE = /^[^._][^/]*\.(ts|js|mts|mjs)$/;
const NOT_TOOL = /\.(d\.ts|test\.[mc]?[jt]s|spec\.[mc]?[jt]s)$/;

/** Top-level tool files of a tools dir: `*.ts|js`, not `_x.ts`, `.x.ts`, `*.d.ts`, `*.test.ts`. */
export function listToolFiles(dir: string): string[] {
  return toolFileNames(dir)
    .map((n) => join(dir, n))
    .filter((f) => isFile(f));
}

function toolFileNames(dir: string): string[] {
  return readdirOrEmpty(dir)
    .filter((n) => TOOL_FILE.test(n) && !NOT_TOOL.test(n))
    .sort();
}

/**
 * Entries of a tools dir named like a tool file that are not files: a directory called `x.ts`, a
 * symlink to nothing, a symlink loop. They are skipped, with a warning each (silently skipping
 * them would leave the user wondering where the tool went).
 */
function nonFileToolEntries(dir: string, origin: Origin): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const n of toolFileNames(dir)) {
    const p = join(dir, n);
    if (isFile(p)) continue;
    const id = normalizeId(n.replace(/\.[^.]+$/, ""));
    let what: string;
    let hint: string;
    if (isDir(p)) {
      what = "is a directory, not a file";
      hint = `Rename the directory (helpers belong in a folder like ${join(dir, "_lib")}), or replace it with a tool file.`;
    } else if (isSymlink(p)) {
      what = "is a symbolic link that points to nothing (missing target or a link loop)";
      hint = `Fix or remove the link ${p}.`;
    } else {
      what = "is not a regular file";
      hint = `Replace ${p} with a tool file or remove it.`;
    }
    out.push({ level: "warning", id, source: p, message: `${origin} tool ${n} ${what}; it is skipped`, hint });
  }
  return out;
}

/** Subdirectories of a plugins dir (each one plugin candidate). */
export function listPluginDirs(dir: string): string[] {
  return readdirOrEmpty(dir)
    .filter((n) => !n.startsWith(".") && n !== "node_modules")
    .sort()
    .map((n) => join(dir, n))
    .filter((d) => isDir(d));
}

/** A missing or unreadable convention dir simply has no entries. */
function readdirOrEmpty(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

export interface DiscoverInput {
  readonly projectWorkspace: string;
  readonly globalDir: string;
  readonly projectRoot: string;
  readonly homeDir: string;
  readonly specifiers: readonly string[];
  /** The gateway's own tools (`tools.workspace`): they come first, nothing can take their names. */
  readonly builtins?: readonly BundledPlugin[];
  /** Sources the config names besides plugins (OpenAPI specs, MCP servers), in config order. */
  readonly bundled: readonly BundledPlugin[];
  /** Where plugins' compiled config validators are kept (config-validator.ts). */
  readonly validatorCache?: ValidatorCache;
}

/**
 * Every candidate, listed as `plugins list` shows them: project tools and plugins, global ones,
 * config.plugins, OpenAPI specs and MCP servers, the built-ins. Who owns a name is decided by
 * `layer` (namespaces.ts; docs/plugins.md, "Who owns a name"), not by this order.
 */
export function discover(input: DiscoverInput, diagnostics: Diagnostic[] = []): Candidate[] {
  return CANDIDATE_KINDS.flatMap((k) => k.candidates(input, diagnostics));
}

/** A kind of candidate the loader finds: its rows, in listing order, each with its layer. */
interface CandidateKind {
  readonly name: string;
  candidates(input: DiscoverInput, diagnostics: Diagnostic[]): Candidate[];
}

/**
 * The kinds the loader iterates, one line each, in the order `plugins list` shows them. Every
 * config-named source kind (OpenAPI, MCP, …; sources/kinds.ts) arrives through `input.bundled`.
 */
const CANDIDATE_KINDS: readonly CandidateKind[] = [
  {
    name: "project workspace files",
    candidates: (i, d) => workspaceCandidates(i.projectWorkspace, "project", 2, i, d),
  },
  {
    name: "global workspace files",
    candidates: (i, d) =>
      i.globalDir === i.projectWorkspace ? [] : workspaceCandidates(i.globalDir, "global", 3, i, d),
  },
  { name: "config.plugins", candidates: (i) => i.specifiers.map((spec) => specifierCandidate(spec, i)) },
  { name: "config-named sources", candidates: (i) => i.bundled.map((b) => bundledCandidate(b, 1)) },
  { name: "built-in tools", candidates: (i) => (i.builtins ?? []).map((b) => bundledCandidate(b, 0)) },
];

/** A workspace's tool files (`tools/*.ts`) and folder plugins (`plugins/<dir>`). */
function workspaceCandidates(
  root: string,
  origin: Origin,
  layer: number,
  input: DiscoverInput,
  diagnostics: Diagnostic[],
): Candidate[] {
  const out: Candidate[] = [];
  diagnostics.push(...nonFileToolEntries(join(root, "tools"), origin));
  for (const file of listToolFiles(join(root, "tools"))) {
    const base = file.slice(file.lastIndexOf("/") + 1).replace(/\.[^.]+$/, "");
    out.push({ kind: "tool", id: normalizeId(base), origin, layer, source: file, file });
  }
  for (const dir of listPluginDirs(join(root, "plugins")))
    out.push(pluginCandidate(dir, origin, layer, input.validatorCache));
  return out;
}

function bundledCandidate(b: BundledPlugin, layer: number): BundledCandidate {
  return { kind: "bundled", id: b.id, origin: "bundled", layer, source: b.source ?? `bundled:${b.id}`, bundled: b };
}

function pluginCandidate(
  dir: string,
  origin: Origin,
  layer: number,
  validatorCache: ValidatorCache | undefined,
  specifier?: string,
): Candidate {
  try {
    const pkg = readPluginPackage(dir, { validatorCache });
    return { kind: "plugin", id: pkg.id, origin, layer, source: dir, pkg, specifier };
  } catch (caught) {
    // Anything else (an unreadable file, a bug on odd input) must not stop the other plugins.
    const err =
      caught instanceof PluginManifestError
        ? caught
        : new PluginManifestError(
            `cannot read plugin: ${caught instanceof Error ? caught.message : String(caught)}`,
            join(dir, "package.json"),
            `Check ${dir} (its package.json and openassistant.json must be readable JSON objects).`,
            normalizeId(dir.split("/").filter(Boolean).pop() ?? "plugin"),
          );
    return {
      kind: "broken",
      entryKind: "plugin",
      id: err.id,
      origin,
      layer,
      source: dir,
      specifier,
      diagnostic: { level: "error", id: err.id, source: err.file, message: err.message, hint: err.hint },
    };
  }
}

function specifierCandidate(spec: string, input: DiscoverInput): Candidate {
  const parsed = parseSpecifier(spec, input.projectRoot, input.homeDir);
  if (parsed.kind === "path") {
    if (!isDir(parsed.dir)) {
      const id = normalizeId(parsed.dir.split("/").filter(Boolean).pop() ?? spec);
      return broken(
        id,
        "path",
        parsed.dir,
        spec,
        `plugin path "${spec}" does not exist (${parsed.dir})`,
        "Fix the path in config.plugins; relative paths are resolved from the project root.",
      );
    }
    return pluginCandidate(parsed.dir, "path", 1, input.validatorCache, spec);
  }
  if (parsed.kind === "package") {
    const name = installedNameOf(parsed.target, input.projectWorkspace);
    const dir = name ? findInstalledPackage(name, input.projectWorkspace) : undefined;
    if (!dir)
      return broken(
        normalizeId(basename(parsed.target).replace(/\.(tgz|tar\.gz|git)$/, "")),
        "npm",
        input.projectRoot,
        spec,
        `plugin "${spec}" is not installed in ${input.projectWorkspace}`,
        `Run \`openassistant plugins install\` (it installs config.plugins into ${input.projectWorkspace}), then reload.`,
      );
    return pluginCandidate(dir, "npm", 2, input.validatorCache, spec);
  }
  // `openassistant plugins install` installs config.plugins into .openassistant/; the project's own node_modules also count.
  const dir = findInstalledPackage(parsed.name, input.projectWorkspace);
  if (!dir)
    return broken(
      normalizeId(parsed.name),
      "npm",
      input.projectRoot,
      spec,
      `plugin package "${parsed.name}" is not installed in ${input.projectWorkspace} or ${input.projectRoot}`,
      `Run \`openassistant plugins install\` (it installs config.plugins into ${input.projectWorkspace}), then reload.`,
    );
  const cand = pluginCandidate(dir, "npm", 1, input.validatorCache, spec);
  if (cand.kind === "plugin" && parsed.range && cand.pkg.version && !versionSatisfies(cand.pkg.version, parsed.range))
    return broken(
      cand.id,
      "npm",
      join(dir, "package.json"),
      spec,
      `installed ${parsed.name}@${cand.pkg.version} does not satisfy "${parsed.range}"`,
      `Run \`openassistant plugins install\`, or change the range in config.plugins.`,
    );
  return cand;
}

function broken(
  id: string,
  origin: Origin,
  source: string,
  specifier: string,
  message: string,
  hint: string,
): BrokenCandidate {
  return {
    kind: "broken",
    entryKind: "plugin",
    id,
    origin,
    layer: 1,
    source,
    specifier,
    diagnostic: { level: "error", id, source, message, hint },
  };
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
function isSymlink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}
function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

export function hasWorkspaceContent(workspace: string): boolean {
  return (
    listToolFiles(join(workspace, "tools")).length > 0 ||
    (existsSync(join(workspace, "plugins")) && listPluginDirs(join(workspace, "plugins")).length > 0)
  );
}

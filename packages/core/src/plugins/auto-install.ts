import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import type { Diagnostic } from "../config/diagnostic.ts";
import { hasWorkspaceContent, listPluginDirs } from "../sources/workspace-files/files.ts";
import { installFailureReason, runBun, tailLines } from "./bun-install.ts";
import { retrying } from "../retry/retry.ts";
import { applyInstallGuard, ensureStub, GUARDED_SCOPE } from "./install-guard.ts";
import { isDeclared, toolImports } from "./undeclared-imports.ts";
import { versionSatisfies } from "../sources/plugin-packages/specifier.ts";

export interface AutoInstallOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly timeoutMs?: number;
  /** Receives what is being installed, and "still installing" lines for slow installs. */
  readonly progress?: (line: string) => void;
}

/** Why a tool file cannot be loaded after the install (one diagnostic for that tool). */
export interface ToolInstallFailure {
  readonly message: string;
  readonly hint: string;
}

export interface AutoInstallResult {
  /** True when `bun install` or `bun add` was started. */
  readonly ran: boolean;
  readonly diagnostics: Diagnostic[];
  /** Tool file → why a package it imports is not installed. */
  readonly toolFailures: Map<string, ToolInstallFailure>;
  /** `name@version` of the packages added to package.json for tools' undeclared imports. */
  readonly added: string[];
  /** `name@version` of the declared dependencies `bun install` installed now. */
  readonly installed: string[];
}

const LOCK = ".install.lock";
export const FIX_COMMAND = "openassistant plugins install";

/**
 * Seed 000 auto-dependency management for a workspace dir (`<project>/.openassistant` or the global
 * dir): when it has tools or plugins, make sure `package.json` exists (private, type module,
 * `workspaces: ["plugins/*"]`, guard overrides; never an `@openassistant/*` dependency), run
 * `bun install` when a declared dependency is missing or out of range, and `bun add --exact` the
 * packages tools import without declaring (so package.json gets the exact resolved version and
 * bun.lock is written). Serialised by a lock file, bounded by a timeout. A package that cannot be
 * installed (unknown, bad version, offline) fails only the tools importing it.
 */
export async function ensureWorkspaceDependencies(
  workspace: string,
  opts: AutoInstallOptions = {},
): Promise<AutoInstallResult> {
  const diagnostics: Diagnostic[] = [];
  const toolFailures = new Map<string, ToolInstallFailure>();
  const added: string[] = [];
  const installed: string[] = [];
  const done = (ran: boolean): AutoInstallResult => ({ ran, diagnostics, toolFailures, added, installed });
  if (!hasWorkspaceContent(workspace)) return done(false);
  const pkgFile = join(workspace, "package.json");
  const read = readWorkspacePackage(workspace);
  if ("error" in read) {
    diagnostics.push({
      level: "error",
      id: "install",
      source: pkgFile,
      message: `cannot parse package.json: ${read.error}`,
      hint: "Fix the JSON; dependencies were not installed.",
    });
    return done(false);
  }
  const pkg = read.pkg;

  const members = workspaceMembers(workspace, pkg);
  const imports = toolImports(workspace);
  for (const [name, files] of imports.refused)
    for (const file of files)
      toolFailures.set(file, {
        message: name.startsWith(GUARDED_SCOPE)
          ? `imports ${name}: the gateway provides only @openassistant/sdk, and the @openassistant scope on npm belongs to an unrelated project, so it is never installed`
          : `imports "${name}", which is not a valid npm package name`,
        hint: `Remove or fix the import of "${name}" in ${file}.`,
      });
  const undeclared = () =>
    [...imports.packages.keys()]
      .filter(
        (n) =>
          !isDeclared(readWorkspacePackage(workspace).pkg ?? pkg, n) && installedVersion(n, workspace) === undefined,
      )
      .sort();
  const missing = () => [
    ...missingDeps(workspace, readWorkspacePackage(workspace).pkg ?? pkg),
    ...members.flatMap((m) => missingDeps(m.dir, m.pkg)),
  ];
  const guarded = applyInstallGuard(
    pkg,
    members.map((m) => m.pkg),
  );
  if (guarded.stripped.length)
    diagnostics.push({
      level: "warning",
      id: "install",
      source: pkgFile,
      message: `removed ${guarded.stripped.join(", ")} from package.json: the @openassistant scope on npm is not ours`,
      hint: "Nothing to install for the SDK: the gateway provides @openassistant/sdk to every tool and plugin.",
    });
  const work = missing().length > 0 || undeclared().length > 0;
  if (!work && guarded.stripped.length === 0) return done(false);
  if (JSON.stringify(guarded.pkg) !== JSON.stringify(pkg))
    writeFileSync(pkgFile, JSON.stringify(guarded.pkg, null, 2) + "\n");
  if (!work) return done(false);
  ensureStub(workspace);

  const timeoutMs = opts.timeoutMs ?? 120_000;
  const progress = opts.progress ?? (() => {});
  const release = await acquireLock(join(workspace, LOCK), timeoutMs);
  let ran = false;
  try {
    // Another process may have installed while we waited.
    const stillMissing = missing();
    let installFailed: string | undefined;
    if (stillMissing.length) {
      ran = true;
      const names = stillMissing.map((m) => m.name);
      progress(`Installing dependencies in ${workspace}: ${names.join(", ")}`);
      const r = await runBun(["install", "--no-progress"], workspace, {
        env: opts.env,
        timeoutMs,
        progress,
        what: names.join(", "),
      });
      if (!r.ok) {
        installFailed = r.timedOut
          ? `bun install timed out after ${Math.round(timeoutMs / 1000)} s`
          : installFailureReason(r.output);
        diagnostics.push({
          level: "error",
          id: "install",
          source: pkgFile,
          message: `${r.timedOut ? installFailed : `bun install failed (exit ${r.code})`} for ${names.join(", ")}:\n${tailLines(r.output, 15)}`,
          hint: `Fix the dependency in ${pkgFile} (or the plugin's package.json), then run \`${FIX_COMMAND}\` (or \`bun install\` in ${workspace} to see the full output).`,
        });
        for (const name of names) failTools(name, installFailed);
      } else installed.push(...stillMissing.map((m) => `${m.name}@${installedVersion(m.name, m.dir) ?? "?"}`));
    }
    const toAdd = undeclared();
    if (toAdd.length && installFailed)
      for (const name of toAdd) failTools(name, `not installed because bun install failed: ${installFailed}`);
    else if (toAdd.length) {
      ran = true;
      const users = (n: string) => (imports.packages.get(n) ?? []).map((f) => relative(workspace, f));
      progress(
        `Installing ${toAdd.map((n) => `${n} (imported by ${users(n).join(", ")})`).join(", ")} into ${pkgFile}`,
      );
      const all = await runBun(["add", "--exact", "--no-progress", ...toAdd], workspace, {
        env: opts.env,
        timeoutMs,
        progress,
        what: toAdd.join(", "),
      });
      const outcomes = all.ok || toAdd.length === 1 ? toAdd.map((n) => ({ name: n, r: all })) : [];
      // One bad name fails the whole `bun add`: retry one by one so only the tools importing it fail.
      if (!outcomes.length)
        for (const name of toAdd)
          outcomes.push({
            name,
            r: await runBun(["add", "--exact", "--no-progress", name], workspace, {
              env: opts.env,
              timeoutMs,
              progress,
              what: name,
            }),
          });
      const after = readWorkspacePackage(workspace).pkg ?? {};
      for (const { name, r } of outcomes) {
        if (r.ok) {
          const version =
            (after.dependencies as Record<string, string> | undefined)?.[name] ??
            installedVersion(name, workspace) ??
            "?";
          added.push(`${name}@${version}`);
          progress(`  added ${name}@${version}`);
        } else
          failTools(
            name,
            r.timedOut
              ? `bun add timed out after ${Math.round(timeoutMs / 1000)} s`
              : installFailureReason(r.output, name),
          );
      }
    }
    return done(ran);
  } finally {
    release();
  }

  function failTools(name: string, reason: string) {
    for (const file of imports.packages.get(name) ?? [])
      toolFailures.set(file, {
        message: `imports ${name}, which could not be installed: ${reason}`,
        hint: `Fix the import or the package name/version, check the network and registry, then run \`${FIX_COMMAND}\`. The other tools still load.`,
      });
  }
}

/** The workspace's package.json, created (with a .gitignore) when missing. */
export function readWorkspacePackage(
  workspace: string,
): { pkg: Record<string, unknown>; error?: undefined } | { pkg?: undefined; error: string } {
  const pkgFile = join(workspace, "package.json");
  if (existsSync(pkgFile)) {
    try {
      return { pkg: JSON.parse(readFileSync(pkgFile, "utf8")) };
    } catch (err) {
      return { error: (err as Error).message };
    }
  }
  const pkg = {
    name: "openassistant-workspace",
    private: true,
    type: "module",
    workspaces: ["plugins/*"],
    dependencies: {},
  };
  mkdirSync(workspace, { recursive: true });
  writeFileSync(pkgFile, JSON.stringify(pkg, null, 2) + "\n");
  const gitignore = join(workspace, ".gitignore");
  if (!existsSync(gitignore)) writeFileSync(gitignore, "node_modules/\ndata/\ncache/\n.install.lock\n");
  return { pkg };
}

interface Member {
  dir: string;
  pkg: Record<string, unknown>;
}

function workspaceMembers(workspace: string, pkg: Record<string, unknown>): Member[] {
  const ws = pkg.workspaces;
  const patterns = Array.isArray(ws)
    ? ws
    : Array.isArray((ws as { packages?: unknown })?.packages)
      ? (ws as { packages: unknown[] }).packages
      : [];
  if (!patterns.includes("plugins/*")) return [];
  const out: Member[] = [];
  for (const dir of listPluginDirs(join(workspace, "plugins"))) {
    const file = join(dir, "package.json");
    if (!existsSync(file)) continue;
    try {
      out.push({ dir, pkg: JSON.parse(readFileSync(file, "utf8")) });
    } catch {
      /* reported by discovery */
    }
  }
  return out;
}

interface Missing {
  name: string;
  range: string;
  /** The folder whose package.json declares it. */
  dir: string;
}

/** Declared dependencies (not peers) of `pkg` that don't resolve from `dir` or are out of range. */
export function missingDeps(dir: string, pkg: Record<string, unknown>): Missing[] {
  const out: Missing[] = [];
  for (const field of ["dependencies", "optionalDependencies", "devDependencies"]) {
    const deps = pkg[field] as Record<string, string> | undefined;
    if (!deps || typeof deps !== "object") continue;
    for (const [name, range] of Object.entries(deps)) {
      if (name.startsWith("@openassistant/")) continue;
      const installed = installedVersion(name, dir);
      if (installed === undefined) out.push({ name, range, dir });
      else if (
        /^[\d^~<>=*xX|.\sv-]+$/.test(range) &&
        range.trim() !== "" &&
        installed &&
        !versionSatisfies(installed, range)
      )
        out.push({ name, range, dir });
    }
  }
  return out;
}

/** Installed version ("" when it has none), or undefined when not installed. */
export function installedVersion(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, "node_modules", name, "package.json");
    if (existsSync(file)) {
      try {
        return String(JSON.parse(readFileSync(file, "utf8")).version ?? "");
      } catch {
        return "";
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * Takes the workspace's install lock, waiting (polled every 100 ms) while another install holds it,
 * up to the install's time limit and 10 s more.
 */
export async function acquireLock(file: string, timeoutMs: number): Promise<() => void> {
  try {
    return await retrying(async () => takeLock(file, timeoutMs), {
      firstWaitMs: 100,
      factor: 1,
      maxWaitMs: 100,
      retryable: (e) => e instanceof LockHeld,
      until: Date.now() + timeoutMs + 10_000,
    });
  } catch (err) {
    if (err instanceof LockHeld)
      throw new Error(`timed out waiting for the install lock ${file}; delete it if no install is running`);
    throw err;
  }
}

class LockHeld extends Error {}

/** The lock, taken over when its holder is gone or it is older than an install may take; else `LockHeld`. */
function takeLock(file: string, timeoutMs: number): () => void {
  let release = createLock(file);
  if (!release && isStale(file, timeoutMs)) {
    rmSync(file, { force: true });
    release = createLock(file);
  }
  if (!release) throw new LockHeld(file);
  return release;
}

/** Creates the lock file with our pid, or undefined when it exists. */
function createLock(file: string): (() => void) | undefined {
  try {
    const fd = openSync(file, "wx");
    writeFileSync(fd, String(process.pid));
    closeSync(fd);
    return () => rmSync(file, { force: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return undefined;
    throw err;
  }
}

function isStale(file: string, timeoutMs: number): boolean {
  try {
    const pid = Number(readFileSync(file, "utf8"));
    if (pid > 0) {
      try {
        process.kill(pid, 0);
      } catch {
        return true;
      }
    }
    return Date.now() - statSync(file).mtimeMs > timeoutMs + 10_000;
  } catch {
    return false;
  }
}

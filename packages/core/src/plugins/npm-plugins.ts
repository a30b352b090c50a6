import { basename, join } from "node:path";
import type { Diagnostic } from "../config/diagnostic.ts";
import { acquireLock, installedVersion, missingDeps, readWorkspacePackage } from "./auto-install.ts";
import { installFailureReason, runBun } from "./bun-install.ts";
import { isValidPackageName } from "./bare-imports.ts";
import { applyInstallGuard, ensureStub, GUARDED_SCOPE } from "./install-guard.ts";
import { normalizeId } from "../tools/plugin-id.ts";
import {
  findInstalledPackage,
  installedNameOf,
  parseSpecifier,
  versionSatisfies,
} from "../sources/plugin-packages/specifier.ts";
import { readFileSync, writeFileSync } from "node:fs";

export interface NpmPluginInstallResult {
  /** `name@version` of each plugin package installed now. */
  readonly installed: string[];
  readonly diagnostics: Diagnostic[];
}

/**
 * `plugins install` for `config.plugins`: each npm specifier (`name`, `name@range`), tarball or git
 * specifier not installed (or out of range) is `bun add --exact`-ed into the workspace
 * (`.openassistant/`), one at a time so a bad one fails alone; a plugin folder (`./path`) whose
 * declared dependencies are missing gets `bun install` in that folder. `@openassistant/*` is never
 * asked of the registry.
 */
export async function installNpmPlugins(
  workspace: string,
  specifiers: readonly string[],
  opts: {
    projectRoot: string;
    homeDir: string;
    configFile: string;
    env?: Readonly<Record<string, string | undefined>>;
    timeoutMs?: number;
    progress?: (line: string) => void;
  },
): Promise<NpmPluginInstallResult> {
  const installed: string[] = [];
  const diagnostics: Diagnostic[] = [];
  const todo: Array<{ spec: string; name?: string; target: string }> = [];
  const folders: Array<{ spec: string; dir: string; names: string[] }> = [];
  for (const spec of specifiers) {
    const parsed = parseSpecifier(spec, opts.projectRoot, opts.homeDir);
    if (parsed.kind === "path") {
      const folder = folderToInstall(spec, parsed.dir, opts.configFile, diagnostics);
      if (folder) folders.push(folder);
      continue;
    }
    if (parsed.kind === "package") {
      const name = installedNameOf(parsed.target, workspace);
      if (!name || !findInstalledPackage(name, workspace)) todo.push({ spec, target: parsed.target });
      continue;
    }
    const fail = (message: string, hint: string) =>
      diagnostics.push({ level: "error", id: normalizeId(parsed.name), source: opts.configFile, message, hint });
    if (parsed.name.startsWith(GUARDED_SCOPE)) {
      fail(
        `config.plugins "${spec}": the @openassistant scope on npm belongs to an unrelated project, so it is never installed`,
        `Remove "${spec}" from config.plugins; use a path ("./plugins/x") for a local plugin.`,
      );
      continue;
    }
    if (!isValidPackageName(parsed.name)) {
      fail(
        `config.plugins "${spec}": "${parsed.name}" is not a valid npm package name`,
        `Fix "${spec}" in config.plugins.`,
      );
      continue;
    }
    const dir = findInstalledPackage(parsed.name, workspace);
    const version = dir ? readVersion(dir) : undefined;
    if (dir && (!parsed.range || (version && versionSatisfies(version, parsed.range)))) continue;
    todo.push({ spec, name: parsed.name, target: parsed.range ? `${parsed.name}@${parsed.range}` : parsed.name });
  }
  const timeoutMs = opts.timeoutMs ?? 120_000;
  for (const f of folders) {
    opts.progress?.(`Installing dependencies of plugin ${f.spec} (config.plugins) in ${f.dir}: ${f.names.join(", ")}`);
    const r = await runBun(["install", "--no-progress"], f.dir, {
      env: opts.env,
      timeoutMs,
      progress: opts.progress,
      what: f.names.join(", "),
    });
    if (r.ok) installed.push(...f.names.map((n) => `${n}@${installedVersion(n, f.dir) ?? "?"}`));
    else
      diagnostics.push({
        level: "error",
        id: normalizeId(basename(f.dir)),
        source: join(f.dir, "package.json"),
        message: `plugin ${f.spec}: bun install failed for ${f.names.join(", ")}: ${r.timedOut ? `timed out after ${Math.round(timeoutMs / 1000)} s` : installFailureReason(r.output)}`,
        hint: `Fix the dependency in ${join(f.dir, "package.json")}, check the network and registry, then run \`openassistant plugins install\` again.`,
      });
  }
  if (!todo.length) return { installed, diagnostics };

  const read = readWorkspacePackage(workspace);
  if (!read.pkg) {
    diagnostics.push({
      level: "error",
      id: "install",
      source: join(workspace, "package.json"),
      message: `cannot parse package.json: ${read.error}`,
      hint: "Fix the JSON; plugins were not installed.",
    });
    return { installed, diagnostics };
  }
  const guarded = applyInstallGuard(read.pkg, []);
  writeFileSync(join(workspace, "package.json"), JSON.stringify(guarded.pkg, null, 2) + "\n");
  ensureStub(workspace);
  const release = await acquireLock(join(workspace, ".install.lock"), timeoutMs);
  try {
    for (const t of todo) {
      const target = t.target;
      opts.progress?.(`Installing plugin ${target} (config.plugins) into ${workspace}`);
      const r = await runBun(["add", "--exact", "--no-progress", target], workspace, {
        env: opts.env,
        timeoutMs,
        progress: opts.progress,
        what: target,
      });
      const name = t.name ?? installedNameOf(target, workspace);
      if (r.ok && name) {
        const dir = findInstalledPackage(name, workspace);
        const v = dir ? readVersion(dir) : undefined;
        installed.push(`${name}@${v ?? "?"}`);
        opts.progress?.(`  added ${name}@${v ?? "?"}`);
      } else
        diagnostics.push({
          level: "error",
          id: normalizeId(name ?? basename(target)),
          source: opts.configFile,
          message: `config.plugins "${t.spec}" could not be installed: ${r.timedOut ? `timed out after ${Math.round(timeoutMs / 1000)} s` : installFailureReason(r.output, name ?? target)}`,
          hint: `Fix the name or version in config.plugins (${opts.configFile}), check the network and registry, then run \`openassistant plugins install\` again.`,
        });
    }
  } finally {
    release();
  }
  return { installed, diagnostics };
}

/**
 * A plugin folder from config.plugins whose declared dependencies are missing. A folder that asks
 * for `@openassistant/*` (a dependency or a required peer) is refused: `bun install` there has no
 * guard and would fetch that scope from npm.
 */
function folderToInstall(
  spec: string,
  dir: string,
  configFile: string,
  diagnostics: Diagnostic[],
): { spec: string; dir: string; names: string[] } | undefined {
  let pkg: Record<string, unknown>;
  try {
    pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  } catch {
    return undefined; // discovery reports a missing or broken package.json
  }
  const missing = missingDeps(dir, pkg);
  if (!missing.length) return undefined;
  const guarded = scopeAskedFor(pkg);
  if (guarded.length) {
    diagnostics.push({
      level: "error",
      id: normalizeId(basename(dir)),
      source: join(dir, "package.json"),
      message: `plugin ${spec} asks for ${guarded.join(", ")}, which would be fetched from npm (the @openassistant scope there belongs to an unrelated project), so its dependencies (${missing.map((m) => m.name).join(", ")}) were not installed`,
      hint: `Remove ${guarded.join(", ")} from the dependencies of ${join(dir, "package.json")} (mark the @openassistant/sdk peer optional in peerDependenciesMeta), then run \`openassistant plugins install\` again. Config: ${configFile}.`,
    });
    return undefined;
  }
  return { spec, dir, names: missing.map((m) => m.name) };
}

function scopeAskedFor(pkg: Record<string, unknown>): string[] {
  const names = (field: string) => Object.keys((pkg[field] as Record<string, string> | undefined) ?? {});
  const optional = (pkg.peerDependenciesMeta ?? {}) as Record<string, { optional?: boolean }>;
  return [
    ...names("dependencies"),
    ...names("devDependencies"),
    ...names("optionalDependencies"),
    ...names("peerDependencies").filter((n) => optional[n]?.optional !== true),
  ].filter((n) => n.startsWith(GUARDED_SCOPE));
}

function readVersion(dir: string): string | undefined {
  try {
    return String(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version ?? "") || undefined;
  } catch {
    return undefined;
  }
}

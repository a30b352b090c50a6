import { join } from "node:path";
import type { Diagnostic } from "../config/diagnostic.ts";
import { acquireLock, readWorkspacePackage } from "./auto-install.ts";
import { installFailureReason, runBun } from "./bun-install.ts";
import { isValidPackageName } from "./bare-imports.ts";
import { applyInstallGuard, ensureStub, GUARDED_SCOPE } from "./install-guard.ts";
import { normalizeId } from "../tools/plugin-id.ts";
import { findInstalledPackage, parseSpecifier, versionSatisfies } from "./specifier.ts";
import { readFileSync, writeFileSync } from "node:fs";

export interface NpmPluginInstallResult {
  /** `name@version` of each plugin package installed now. */
  readonly installed: string[];
  readonly diagnostics: Diagnostic[];
}

/**
 * `plugins install` for the npm specifiers in `config.plugins` (`name`, `name@range`): each one not
 * installed (or out of range) is `bun add --exact`-ed into the workspace (`.openassistant/`), one at
 * a time so a bad one fails alone. `@openassistant/*` is never asked of the registry.
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
  const todo: Array<{ spec: string; name: string; range?: string }> = [];
  for (const spec of specifiers) {
    const parsed = parseSpecifier(spec, opts.projectRoot, opts.homeDir);
    if (parsed.kind !== "npm") continue;
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
    todo.push({ spec, name: parsed.name, range: parsed.range });
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
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const release = await acquireLock(join(workspace, ".install.lock"), timeoutMs);
  try {
    for (const t of todo) {
      const target = t.range ? `${t.name}@${t.range}` : t.name;
      opts.progress?.(`Installing plugin ${target} (config.plugins) into ${workspace}`);
      const r = await runBun(["add", "--exact", "--no-progress", target], workspace, {
        env: opts.env,
        timeoutMs,
        progress: opts.progress,
        what: target,
      });
      if (r.ok) {
        const dir = findInstalledPackage(t.name, workspace);
        const v = dir ? readVersion(dir) : undefined;
        installed.push(`${t.name}@${v ?? "?"}`);
        opts.progress?.(`  added ${t.name}@${v ?? "?"}`);
      } else
        diagnostics.push({
          level: "error",
          id: normalizeId(t.name),
          source: opts.configFile,
          message: `config.plugins "${t.spec}" could not be installed: ${r.timedOut ? `timed out after ${Math.round(timeoutMs / 1000)} s` : installFailureReason(r.output, t.name)}`,
          hint: `Fix the name or version in config.plugins (${opts.configFile}), check the network and registry, then run \`openassistant plugins install\` again.`,
        });
    }
  } finally {
    release();
  }
  return { installed, diagnostics };
}

function readVersion(dir: string): string | undefined {
  try {
    return String(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version ?? "") || undefined;
  } catch {
    return undefined;
  }
}

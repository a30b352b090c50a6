import { closeSync, existsSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Diagnostic } from "../config/diagnostic.ts";
import { hasWorkspaceContent, listPluginDirs } from "./discovery.ts";
import { applyInstallGuard, ensureStub } from "./install-guard.ts";
import { versionSatisfies } from "./specifier.ts";

export interface AutoInstallOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly timeoutMs?: number;
}

export interface AutoInstallResult {
  /** True when `bun install` was started. */
  readonly ran: boolean;
  readonly diagnostics: Diagnostic[];
}

const LOCK = ".install.lock";

/**
 * Seed 000 auto-dependency management for a workspace dir (`<project>/.openassistant` or the global
 * dir): when it has tools or plugins, make sure `package.json` exists (private, type module,
 * `workspaces: ["plugins/*"]`, guard overrides; never an `@openassistant/*` dependency), and run
 * `bun install` there only if some declared dependency is missing or out of range. Serialised by a
 * lock file, bounded by a timeout; failures come back as diagnostics with bun's stderr tail.
 */
export async function ensureWorkspaceDependencies(workspace: string, opts: AutoInstallOptions = {}): Promise<AutoInstallResult> {
  const diagnostics: Diagnostic[] = [];
  if (!hasWorkspaceContent(workspace)) return { ran: false, diagnostics };
  const pkgFile = join(workspace, "package.json");
  let pkg: Record<string, unknown>;
  if (existsSync(pkgFile)) {
    try {
      pkg = JSON.parse(readFileSync(pkgFile, "utf8"));
    } catch (err) {
      diagnostics.push({ level: "error", id: "install", source: pkgFile, message: `cannot parse package.json: ${(err as Error).message}`, hint: "Fix the JSON; dependencies were not installed." });
      return { ran: false, diagnostics };
    }
  } else {
    pkg = { name: "openassistant-workspace", private: true, type: "module", workspaces: ["plugins/*"], dependencies: {} };
    writeFileSync(pkgFile, JSON.stringify(pkg, null, 2) + "\n");
    const gitignore = join(workspace, ".gitignore");
    if (!existsSync(gitignore)) writeFileSync(gitignore, "node_modules/\ndata/\n.install.lock\n");
  }

  const members = workspaceMembers(workspace, pkg);
  const missing = [...missingDeps(workspace, pkg), ...members.flatMap((m) => missingDeps(m.dir, m.pkg))];
  const guarded = applyInstallGuard(pkg, members.map((m) => m.pkg));
  if (guarded.stripped.length)
    diagnostics.push({
      level: "warning",
      id: "install",
      source: pkgFile,
      message: `removed ${guarded.stripped.join(", ")} from package.json: the @openassistant scope on npm is not ours`,
      hint: "Nothing to install for the SDK: the gateway provides @openassistant/sdk to every tool and plugin.",
    });
  if (missing.length === 0 && guarded.stripped.length === 0) return { ran: false, diagnostics };
  if (JSON.stringify(guarded.pkg) !== JSON.stringify(pkg)) writeFileSync(pkgFile, JSON.stringify(guarded.pkg, null, 2) + "\n");
  if (missing.length === 0) return { ran: false, diagnostics };
  ensureStub(workspace);

  const timeoutMs = opts.timeoutMs ?? 120_000;
  const release = await acquireLock(join(workspace, LOCK), timeoutMs);
  try {
    // Another process may have installed while we waited.
    const stillMissing = [...missingDeps(workspace, guarded.pkg), ...members.flatMap((m) => missingDeps(m.dir, m.pkg))];
    if (stillMissing.length === 0) return { ran: false, diagnostics };
    const proc = Bun.spawn([process.execPath, "install", "--no-progress"], {
      cwd: workspace,
      env: { ...(opts.env ?? process.env) } as Record<string, string>,
      stdout: "pipe",
      stderr: "pipe",
      stdin: "ignore",
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      proc.kill("SIGKILL");
    }, timeoutMs);
    const [stderr, stdout] = await Promise.all([new Response(proc.stderr).text(), new Response(proc.stdout).text()]);
    const code = await proc.exited;
    clearTimeout(timer);
    if (timedOut || code !== 0) {
      const tail = tailLines(scrub(stderr || stdout), 15);
      diagnostics.push({
        level: "error",
        id: "install",
        source: pkgFile,
        message: `${timedOut ? `bun install timed out after ${Math.round(timeoutMs / 1000)} s` : `bun install failed (exit ${code})`} for ${stillMissing.map((m) => m.name).join(", ")}:\n${tail}`,
        hint: `Fix the dependency in ${pkgFile} (or the plugin's package.json), then reload; run \`bun install\` in ${workspace} to see the full output.`,
      });
    }
    return { ran: true, diagnostics };
  } finally {
    release();
  }
}

interface Member {
  dir: string;
  pkg: Record<string, unknown>;
}

function workspaceMembers(workspace: string, pkg: Record<string, unknown>): Member[] {
  const ws = pkg.workspaces;
  const patterns = Array.isArray(ws) ? ws : Array.isArray((ws as { packages?: unknown })?.packages) ? (ws as { packages: unknown[] }).packages : [];
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
}

/** Declared dependencies (not peers) of `pkg` that don't resolve from `dir` or are out of range. */
function missingDeps(dir: string, pkg: Record<string, unknown>): Missing[] {
  const out: Missing[] = [];
  for (const field of ["dependencies", "optionalDependencies", "devDependencies"]) {
    const deps = pkg[field] as Record<string, string> | undefined;
    if (!deps || typeof deps !== "object") continue;
    for (const [name, range] of Object.entries(deps)) {
      if (name.startsWith("@openassistant/")) continue;
      const installed = installedVersion(name, dir);
      if (installed === undefined) out.push({ name, range });
      else if (/^[\d^~<>=*xX|.\sv-]+$/.test(range) && range.trim() !== "" && installed && !versionSatisfies(installed, range)) out.push({ name, range });
    }
  }
  return out;
}

/** Installed version ("" when it has none), or undefined when not installed. */
function installedVersion(name: string, from: string): string | undefined {
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

async function acquireLock(file: string, timeoutMs: number): Promise<() => void> {
  const deadline = Date.now() + timeoutMs + 10_000;
  for (;;) {
    try {
      const fd = openSync(file, "wx");
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      if (isStale(file, timeoutMs)) {
        rmSync(file, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for the install lock ${file}; delete it if no install is running`);
      await Bun.sleep(100);
    }
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

function tailLines(text: string, n: number): string {
  return text.trimEnd().split("\n").slice(-n).join("\n");
}

/** Registry credentials can appear in bun's output (URLs, `_authToken`); never pass them on. */
function scrub(text: string): string {
  return text.replace(/(\/\/)[^/\s:@]+:[^/\s@]+@/g, "$1***@").replace(/(_authToken|token)=\S+/gi, "$1=***");
}

import { existsSync, lstatSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Diagnostic } from "../../config/diagnostic.ts";
import { normalizeId } from "../../tools/plugin-id.ts";
import type { Origin } from "../kind.ts";
import { isDir } from "../plugin-packages/entries.ts";

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
export function nonFileToolEntries(dir: string, origin: Origin): Diagnostic[] {
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

/** Whether a workspace has tool files or folder plugins of its own. */
export function hasWorkspaceContent(workspace: string): boolean {
  return (
    listToolFiles(join(workspace, "tools")).length > 0 ||
    (existsSync(join(workspace, "plugins")) && listPluginDirs(join(workspace, "plugins")).length > 0)
  );
}

/** A missing or unreadable convention dir simply has no entries. */
function readdirOrEmpty(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
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

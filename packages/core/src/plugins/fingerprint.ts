import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const SKIP = new Set(["node_modules", "data", ".git"]);
const MAX_FILES = 2000;

/** mtime+size of a file, or "-" when missing. */
export function fileStamp(file: string): string {
  try {
    const s = statSync(file);
    return `${s.mtimeMs}:${s.size}`;
  } catch {
    return "-";
  }
}

/** Stamp of every file under `dir` (skipping node_modules, data, .git), optionally excluding top-level files. */
export function dirStamp(dir: string, opts: { skipTopLevelFiles?: boolean } = {}): string {
  const parts: string[] = [];
  const walk = (d: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch {
      return;
    }
    for (const n of names) {
      if (parts.length > MAX_FILES) return;
      if (SKIP.has(n) || n.startsWith(".")) continue;
      const p = join(d, n);
      let s: ReturnType<typeof statSync>;
      try {
        s = statSync(p);
      } catch {
        continue;
      }
      if (s.isDirectory()) walk(p, depth + 1);
      else if (!(opts.skipTopLevelFiles && depth === 0)) parts.push(`${p}@${s.mtimeMs}:${s.size}`);
    }
  };
  walk(dir, 0);
  return parts.join("|");
}

import { closeSync, constants, existsSync, fstatSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { appendWhole } from "../files/whole-writes.ts";
import { join } from "node:path";

/** One change to an assistant-managed tool file, as the history log keeps it. */
export interface ToolVersion {
  /** File name inside the tools folder, e.g. `signups.ts`. */
  readonly name: string;
  readonly action: "write" | "remove" | "rollback";
  /** SHA-256 of the file after the change (absent after a remove). */
  readonly sha256?: string;
  /** SHA-256 of the file it replaced, if any. */
  readonly previousSha256?: string;
  /** Copy of the replaced file, kept so no version is ever lost. */
  readonly previousCopy?: string;
  readonly at: string;
  readonly callId?: string;
  readonly approvedBy?: string;
  readonly reason?: string;
}

/**
 * The tools folder's history: every replaced or removed file is copied under
 * `history/tools/<name>/<time>-<sha>.ts` before it changes, and every change appends a line to
 * `history/tools.jsonl`. Nothing here is ever rewritten or deleted.
 */
export function toolHistory(historyDir: string) {
  const log = join(historyDir, "tools.jsonl");
  return {
    /** Copies the current content of `name` aside and returns the copy's path. */
    keep(name: string, source: string, sha256: string): string {
      const dir = join(historyDir, "tools", name);
      mkdirSync(dir, { recursive: true });
      const copy = join(dir, `${new Date().toISOString().replace(/[:.]/g, "-")}-${sha256.slice(0, 12)}.ts`);
      if (!existsSync(copy)) writeFileSync(copy, source, { flag: "wx" });
      return copy;
    },
    record(version: ToolVersion): void {
      mkdirSync(historyDir, { recursive: true });
      // Whole lines only: on a full disk a line cut short is removed, not glued to the next one.
      const fd = openSync(log, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND, 0o644);
      try {
        appendWhole(fd, fstatSync(fd).size, `${JSON.stringify(version)}\n`);
      } finally {
        closeSync(fd);
      }
    },
    list(name?: string): ToolVersion[] {
      if (!existsSync(log)) return [];
      const out: ToolVersion[] = [];
      for (const line of readFileSync(log, "utf8").split("\n")) {
        if (!line) continue;
        try {
          const v = JSON.parse(line) as ToolVersion;
          if (!name || v.name === name) out.push(v);
        } catch {
          // a torn last line after a crash: skip it, keep the rest
        }
      }
      return out;
    },
  };
}
export type ToolHistory = ReturnType<typeof toolHistory>;

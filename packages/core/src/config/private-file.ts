import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync } from "node:fs";
import { writeAll } from "../files/whole-writes.ts";
import { dirname } from "node:path";

/**
 * Replaces a file that holds secrets (auth profiles, OAuth tokens) atomically: written to a 0600
 * temp file beside it, synced, then renamed over it, so a reader sees the old or the new file,
 * never half of one and never one others can read. Its folder is created 0700 when missing.
 */
export function writePrivateFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.${Buffer.from(crypto.getRandomValues(new Uint8Array(4))).toString("hex")}.tmp`;
  const fd = openSync(tmp, "wx", 0o600);
  try {
    // All of it or an error: a short temp file must never be renamed over the good one.
    writeAll(fd, text);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw e;
  }
  closeSync(fd);
  renameSync(tmp, path);
}

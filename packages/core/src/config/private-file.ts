import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { replaceFile } from "../files/whole-writes.ts";

/**
 * Replaces a file that holds secrets (auth profiles, OAuth tokens) atomically: written to a 0600
 * temp file beside it, synced, then renamed over it, so a reader sees the old or the new file,
 * never half of one and never one others can read. Its folder is created 0700 when missing.
 */
export function writePrivateFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  replaceFile(path, text, { mode: 0o600, sync: true });
}

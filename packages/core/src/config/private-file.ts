import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
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

/**
 * A secret the gateway keeps in a 0600 file it made: the stored text (trimmed) when `valid`
 * accepts it, the file's mode tightened first if others could read it; an error saying `invalid`
 * when it does not (a file cut short on a full disk must never become a short secret); with no
 * file, `make()` written whole. `created` tells which.
 */
export function loadOrCreateSecretFile(
  path: string,
  o: { readonly valid: RegExp; readonly make: () => string; readonly invalid: string },
): { text: string; created: boolean } {
  if (existsSync(path)) {
    if (statSync(path).mode & 0o077) chmodSync(path, 0o600);
    const text = readFileSync(path, "utf8").trim();
    if (!o.valid.test(text)) throw new Error(`${path} ${o.invalid}`);
    return { text, created: false };
  }
  const text = o.make();
  writePrivateFile(path, `${text}\n`);
  return { text, created: true };
}

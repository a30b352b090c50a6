import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, rmSync, statSync } from "node:fs";
import { writeAll } from "../files/whole-writes.ts";
import { join } from "node:path";

/** `<config dir>/receipts.key`: the HMAC key of the receipt chain, beside auth-profiles.json. */
export const RECEIPT_KEY_FILENAME = "receipts.key";

export interface ReceiptKey {
  readonly key: Uint8Array;
  /** Short public fingerprint of the key, recorded in the database to tell keys apart. */
  readonly id: string;
  /** The key file, or undefined for a per-process key. */
  readonly path?: string;
  /** The directory holding the key file and the chain heads. */
  readonly dir?: string;
}

export function receiptKeyPath(dir: string): string {
  return join(dir, RECEIPT_KEY_FILENAME);
}

/**
 * Loads the receipt key from `dir`, creating it (32 random bytes, hex, mode 0600) on first start.
 * The key lives outside the database so that someone who can write the database file cannot
 * re-sign a rewritten history. A key file readable by other users is refused, like the auth store.
 */
export function loadReceiptKey(dir: string): ReceiptKey {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = receiptKeyPath(dir);
  try {
    const fd = openSync(path, "wx", 0o600);
    try {
      writeAll(fd, `${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex")}\n`);
      fsyncSync(fd);
    } catch (e) {
      // A key file cut short (a full disk) would be taken for the key at the next start.
      rmSync(path, { force: true });
      throw e;
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST")
      throw new Error(`Could not create the receipt key ${path}: ${(e as Error).message}`);
  }
  const mode = statSync(path).mode;
  if ((mode & 0o077) !== 0) {
    const octal = (mode & 0o777).toString(8).padStart(3, "0");
    throw new Error(
      `Refusing to use ${path}: it signs the receipts but is readable by other users (mode ${octal}). Run: chmod 600 ${path}`,
    );
  }
  const text = readFileSync(path, "utf8").trim();
  if (!/^[0-9a-f]{64}$/.test(text))
    throw new Error(
      `${path} is not a receipt key (expected 64 hex characters). Restore it from a backup; if it is lost, move the database aside so a new chain starts.`,
    );
  const key = Buffer.from(text, "hex");
  return { key, id: keyId(key), path, dir };
}

let processKey: ReceiptKey | undefined;

/**
 * A key that lives only in this process (tests, throwaway databases): receipts verify only
 * inside the process that wrote them. The gateway always passes its config dir instead.
 */
export function processReceiptKey(): ReceiptKey {
  if (!processKey) {
    const key = crypto.getRandomValues(new Uint8Array(32));
    processKey = { key, id: keyId(key) };
  }
  return processKey;
}

function keyId(key: Uint8Array): string {
  return `k_${new Bun.CryptoHasher("sha256").update("oa-receipt-key-id\n").update(key).digest("hex").slice(0, 16)}`;
}

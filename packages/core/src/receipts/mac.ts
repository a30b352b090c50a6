import { MAC_COLUMNS_ABSENT_WHEN_NULL, MAC_TEXT_COLUMNS, type MacTextColumn } from "./sqlite/schema.ts";

/**
 * The keyed chain (scheme 2): mac = HMAC-SHA256(key, encoding), hex, where the encoding is
 *
 *   "oa-receipt/v2\n" prev "\n" "seq=" seq "\n" "at=" at "\n" "duration_ms=" (n | "-") "\n"
 *   then for each text column in MAC_TEXT_COLUMNS: name "=" ("-" | "#" byteLength ":" bytes) "\n"
 *   (a column added later, MAC_COLUMNS_ABSENT_WHEN_NULL, only when not NULL: older rows keep their MACs)
 *
 * `bytes` are the column's stored UTF-8 bytes exactly (the verifier reads them with
 * `CAST(col AS BLOB)`), length-prefixed so no choice of content can shift a field boundary.
 * `prev` is the previous row's mac in global `seq` order, or the genesis mac for the first keyed row.
 */
export type MacText = string | Uint8Array | null;

export interface MacFields {
  readonly seq: number;
  readonly at: number;
  readonly durationMs: number | null;
  readonly text: Readonly<Record<MacTextColumn, MacText>>;
}

/** One string (one UTF-8 encoding pass) when every value is text; exact bytes when read back. */
export function receiptMac(key: Uint8Array, prev: string, f: MacFields): string {
  const h = new Bun.CryptoHasher("sha256", key);
  let text = `oa-receipt/v2\n${prev}\nseq=${f.seq}\nat=${f.at}\nduration_ms=${f.durationMs === null ? "-" : String(f.durationMs)}\n`;
  for (const col of MAC_TEXT_COLUMNS) {
    const v = f.text[col];
    if (v === null) {
      if (!MAC_COLUMNS_ABSENT_WHEN_NULL.has(col)) text += `${col}=-\n`;
    } else if (typeof v === "string") text += `${col}=#${Buffer.byteLength(v, "utf8")}:${v}\n`;
    else {
      h.update(text);
      h.update(`${col}=#${v.length}:`);
      h.update(v);
      text = "\n";
    }
  }
  h.update(text);
  return h.digest("hex");
}

/**
 * Where the keyed chain starts: bound to the database's id and to every legacy row present when
 * the chain began (their count and a digest of their seq:hash), so dropping or rewriting a legacy
 * row after the migration breaks the first keyed row.
 */
export function genesisMac(key: Uint8Array, dbId: string, legacy: LegacyDigest): string {
  return new Bun.CryptoHasher("sha256", key)
    .update(`oa-receipt/v2/genesis\n${dbId}\n${legacy.count}\n${legacy.digest}`)
    .digest("hex");
}

export interface LegacyDigest {
  readonly count: number;
  readonly digest: string;
}

export function legacyDigester() {
  const h = new Bun.CryptoHasher("sha256");
  let count = 0;
  return {
    add(seq: number, hash: string) {
      h.update(`${seq}:${hash}\n`);
      count++;
    },
    done(): LegacyDigest {
      return { count, digest: h.digest("hex") };
    },
  };
}

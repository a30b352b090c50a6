import type { Postgres } from "../../db/postgres/connect.ts";
import type { ReceiptKey } from "../key.ts";
import { genesisMac, legacyDigester, receiptMac } from "../mac.ts";
import { DRAFT_TEXT_FIELDS, draftContent, macFields } from "../sqlite/chain-writer.ts";
import type { Receipt, ReceiptDraft } from "../types.ts";
import { PG_INSERT_COLUMNS } from "./schema.ts";

/** A staged receipt: its bounded draft and the time it was staged. */
export interface StagedReceipt {
  readonly draft: ReceiptDraft;
  readonly at: number;
}

/** The advisory lock that orders appends to the one chain across every gateway on the database. */
export const CHAIN_LOCK = 0x6f617263;

/** The keyed chain's first prev on Postgres: bound to the database id (no legacy rows exist here). */
export function pgGenesis(key: ReceiptKey, dbId: string): string {
  return genesisMac(key.key, dbId, legacyDigester().done());
}

/**
 * PostgreSQL text cannot hold U+0000 (SQLite can): it is stored as U+2400 (␀, "symbol for null"),
 * before the MAC is computed, so what is stored is what is signed and read back.
 */
export function storableDraft(d: ReceiptDraft): ReceiptDraft {
  let out: Record<string, unknown> | undefined;
  for (const f of [...DRAFT_TEXT_FIELDS, "runId", "callId", "toolPath"] as const) {
    const v = d[f];
    if (typeof v === "string" && v.includes("\u0000")) {
      out ??= { ...d };
      out[f] = v.replaceAll("\u0000", "\u2400");
    }
  }
  return (out ?? d) as ReceiptDraft;
}

/**
 * Appends a batch to the chain in one transaction: the chain lock (so seq and prev are ours even
 * with other gateways writing), the chain's end, then each row's seq, prev and MAC, inserted in one
 * statement. Resolves only after COMMIT; on any error nothing of the batch is written.
 */
export async function appendBatch(
  sql: Postgres,
  key: ReceiptKey,
  dbId: string,
  batch: readonly StagedReceipt[],
): Promise<Receipt[]> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${CHAIN_LOCK})`;
    // A statement of its own, after the lock: under READ COMMITTED each statement takes a new
    // snapshot, so this one sees the rows of the gateway that held the lock before us (read in the
    // same statement as the lock, the snapshot would predate the wait).
    const [last] = await tx`SELECT seq::float8 AS seq, hash FROM receipts ORDER BY seq DESC LIMIT 1`;
    let seq: number = last ? last.seq : 0;
    let prev: string = last ? last.hash : pgGenesis(key, dbId);
    const out: Receipt[] = [];
    const rows: Array<Record<string, unknown>> = [];
    for (const { draft, at } of batch) {
      seq++;
      const content = draftContent(draft, seq, at);
      const fields = macFields(content);
      const hash = receiptMac(key.key, prev, fields);
      rows.push({ ...fields.text, seq, duration_ms: fields.durationMs, at, prev_hash: prev, hash, scheme: 2 });
      out.push({ ...content, prevHash: prev, hash } as Receipt);
      prev = hash;
    }
    await tx`INSERT INTO receipts ${tx(rows, ...PG_INSERT_COLUMNS)}`;
    return out;
  });
}

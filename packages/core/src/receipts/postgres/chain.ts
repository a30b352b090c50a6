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
 * The transaction's start, the chain lock (so seq and prev are ours even with other gateways
 * writing) and the chain's end, sent as one simple-protocol message: one round trip. Each statement
 * of such a message takes its own snapshot under READ COMMITTED, so the SELECT, run after the lock
 * was granted, sees the rows of the gateway that held the lock before us.
 */
const BEGIN_LOCKED = `BEGIN; SELECT pg_advisory_xact_lock(${CHAIN_LOCK}); SELECT seq::float8 AS seq, hash FROM receipts ORDER BY seq DESC LIMIT 1`;

/**
 * Appends a batch to the chain in one transaction on a connection of its own: BEGIN with the chain
 * lock and the chain's end (one round trip), then each row's seq, prev and MAC, inserted in one
 * statement, then COMMIT: three round trips. Resolves only after COMMIT; on any error the
 * transaction is rolled back and nothing of the batch is written.
 */
export async function appendBatch(
  sql: Postgres,
  key: ReceiptKey,
  dbId: string,
  batch: readonly StagedReceipt[],
): Promise<Receipt[]> {
  const tx = await sql.reserve();
  try {
    const [, , ends] = (await tx.unsafe(BEGIN_LOCKED).simple()) as unknown as [
      unknown,
      unknown,
      Array<{ seq: number; hash: string }>,
    ];
    const last = ends[0];
    let seq: number = last ? Number(last.seq) : 0;
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
    await tx`COMMIT`;
    return out;
  } catch (e) {
    await tx`ROLLBACK`.catch(() => {}); // a dropped connection rolled it back already
    throw e;
  } finally {
    tx.release();
  }
}

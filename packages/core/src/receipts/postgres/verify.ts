import type { Postgres } from "../../db/postgres/connect.ts";
import type { ChainHead } from "../head.ts";
import type { ReceiptKey } from "../key.ts";
import { receiptMac } from "../mac.ts";
import { MAC_TEXT_COLUMNS, type MacTextColumn } from "../sqlite/schema.ts";
import type { VerifyResult } from "../types.ts";
import { pgGenesis } from "./chain.ts";

const PAGE = 1000;
const SELECT = `SELECT seq::float8 AS seq, scheme, at::float8 AS at, duration_ms, prev_hash, hash, ${MAC_TEXT_COLUMNS.join(", ")} FROM receipts`;
const id = (seq: number) => `r_${String(seq).padStart(6, "0")}`;
const fail = (seq: number, reason: string): VerifyResult => ({ ok: false, brokenAt: id(seq), reason });

/**
 * The keyed chain on Postgres, checked as on SQLite (receipts/sqlite/verify.ts): each row's prev is
 * the previous row's MAC (the genesis MAC for the first) and its MAC covers every column. Text is
 * read as text: PostgreSQL stores valid UTF-8, which round-trips through a JS string exactly.
 * Rows are read a page at a time in seq order.
 */
export function createPgVerifier(
  sql: Postgres,
  key: ReceiptKey,
  dbId: string,
  head: { current(): ChainHead | undefined; readonly where: string },
) {
  /** The newest receipts this machine committed are still there, unchanged (see head.ts). */
  async function checkHead(): Promise<VerifyResult | undefined> {
    const h = head.current();
    if (!h) return undefined;
    const [last] = await sql`SELECT MAX(seq)::float8 AS seq FROM receipts`;
    if (last.seq === null || last.seq < h.seq)
      return fail(
        h.seq,
        `the chain ends at ${last.seq === null ? "nothing" : id(last.seq)}, but the head (${head.where}) records ${id(h.seq)}: receipts at the end were removed`,
      );
    const [at] = await sql`SELECT hash FROM receipts WHERE seq = ${h.seq}`;
    if (!at || at.hash !== h.mac)
      return fail(
        h.seq,
        `${id(h.seq)} is not the receipt the head (${head.where}) records: it was removed or replaced`,
      );
    return undefined;
  }

  async function checkFrom(
    fromSeq: number,
    expectedPrev: string,
    toSeq: number,
  ): Promise<{ result?: VerifyResult; count: number }> {
    let prev = expectedPrev;
    let count = 0;
    let after = fromSeq - 1;
    for (;;) {
      const rows = await sql.unsafe(`${SELECT} WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT ${PAGE}`, [
        after,
        toSeq,
      ]);
      for (const row of rows) {
        if (row.scheme !== 2)
          return {
            result: fail(
              row.seq,
              `${id(row.seq)} is not a keyed receipt (scheme ${row.scheme}): it was forged or relabelled`,
            ),
            count,
          };
        if (row.prev_hash !== prev)
          return {
            result: fail(
              row.seq,
              `${id(row.seq)}: its prev_hash does not match the ${count === 0 ? "chain's start or the previous receipt" : "previous receipt"} (receipts before it were removed, inserted or reordered)`,
            ),
            count,
          };
        const text = {} as Record<MacTextColumn, string | null>;
        for (const c of MAC_TEXT_COLUMNS) text[c] = row[c];
        const mac = receiptMac(key.key, prev, { seq: row.seq, at: row.at, durationMs: row.duration_ms, text });
        if (mac !== row.hash)
          return {
            result: fail(
              row.seq,
              `${id(row.seq)}: its content does not match its keyed MAC (the row was edited or forged)`,
            ),
            count,
          };
        prev = row.hash;
        count++;
        after = row.seq;
      }
      if (rows.length < PAGE) return { count };
    }
  }

  async function verifyAll(): Promise<VerifyResult> {
    const [first] = await sql`SELECT MIN(seq)::float8 AS seq FROM receipts`;
    const headState = head.current() ? "checked" : "none";
    if (first.seq === null) return (await checkHead()) ?? { ok: true, legacy: 0, keyed: 0, head: headState };
    if (first.seq !== 1)
      return fail(first.seq, `${id(first.seq)} is the first receipt: the ones before it were removed`);
    const { result, count } = await checkFrom(1, pgGenesis(key, dbId), Number.MAX_SAFE_INTEGER);
    return result ?? (await checkHead()) ?? { ok: true, legacy: 0, keyed: count, head: headState };
  }

  /** One run: the chain from its first receipt through the one after its last. */
  async function verifyRun(runId: string): Promise<{ ok: true } | { ok: false; brokenAt: string; reason: string }> {
    const [span] =
      await sql`SELECT MIN(seq)::float8 AS first, MAX(seq)::float8 AS last FROM receipts WHERE run_id = ${runId}`;
    if (span.first === null) return { ok: true };
    const [before] = await sql`SELECT hash FROM receipts WHERE seq < ${span.first} ORDER BY seq DESC LIMIT 1`;
    const [next] = await sql`SELECT MIN(seq)::float8 AS seq FROM receipts WHERE seq > ${span.last}`;
    const expected = before ? before.hash : pgGenesis(key, dbId);
    if (!before && span.first !== 1)
      return fail(span.first, `${id(span.first)} is the first receipt: the ones before it were removed`);
    const { result } = await checkFrom(span.first, expected, next.seq ?? span.last);
    const problem = result ?? (await checkHead());
    return problem && !problem.ok ? problem : { ok: true };
  }

  return { verifyAll, verifyRun };
}

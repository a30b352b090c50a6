import type { Database } from "bun:sqlite";
import { receiptHash } from "../hash.ts";
import type { ChainHead } from "../head.ts";
import { genesisMac, legacyDigester, receiptMac, type LegacyDigest } from "../mac.ts";
import { MAC_TEXT_COLUMNS, type MacTextColumn, readMeta, SCHEME_KEYED, SCHEME_LEGACY } from "./schema.ts";
import type { Receipt, VerifyResult } from "../types.ts";

export interface VerifierOptions {
  readonly db: Database;
  readonly key: Uint8Array;
  readonly keyId: string;
  readonly dbId: string;
  /** The last committed (seq, mac) as recorded outside the database, if any. */
  readonly head: () => ChainHead | undefined;
  /** Where the head is kept, for messages. */
  readonly headWhere: string;
}

/** A row as stored: numbers as read, text columns as their exact stored bytes. */
interface StoredRow {
  seq: number;
  scheme: number;
  at: number;
  duration_ms: number | null;
  prev_hash: string | null;
  hash: string;
  text: Record<MacTextColumn, Uint8Array | null>;
}

const SELECT_STORED = `SELECT seq, scheme, at, duration_ms, prev_hash, hash, ${MAC_TEXT_COLUMNS.map((c) => `CAST(${c} AS BLOB) AS ${c}`).join(", ")} FROM receipts`;
const decoder = new TextDecoder();

const id = (seq: number) => `r_${String(seq).padStart(6, "0")}`;
const fail = (seq: number | string, reason: string): VerifyResult => ({
  ok: false,
  brokenAt: typeof seq === "number" ? id(seq) : seq,
  reason,
});

export function createVerifier(o: VerifierOptions) {
  const { db } = o;
  const rowsFrom = db.prepare(`${SELECT_STORED} WHERE seq >= ? AND seq <= ? ORDER BY seq`);
  const lastOfRun = db.prepare("SELECT MAX(seq) AS seq FROM receipts WHERE run_id = ?");
  const after = db.prepare("SELECT MIN(seq) AS seq FROM receipts WHERE seq > ?");
  const legacyBefore = db.prepare(
    `SELECT seq, hash FROM receipts WHERE scheme = ${SCHEME_LEGACY} AND seq < ? ORDER BY seq`,
  );
  const runLegacy = db.prepare(`${SELECT_STORED} WHERE run_id = ? AND scheme = ${SCHEME_LEGACY} ORDER BY seq`);
  const firstKeyedOfRun = db.prepare(
    `SELECT MIN(seq) AS seq FROM receipts WHERE run_id = ? AND scheme = ${SCHEME_KEYED}`,
  );
  const firstKeyed = db.prepare(`SELECT MIN(seq) AS seq FROM receipts WHERE scheme = ${SCHEME_KEYED}`);
  const before = db.prepare("SELECT seq, hash, scheme FROM receipts WHERE seq < ? ORDER BY seq DESC LIMIT 1");
  const lastRow = db.prepare("SELECT seq, hash FROM receipts ORDER BY seq DESC LIMIT 1");
  const rowAt = db.prepare("SELECT hash FROM receipts WHERE seq = ?");

  const read = (r: Record<string, unknown>): StoredRow => {
    const text = {} as Record<MacTextColumn, Uint8Array | null>;
    for (const c of MAC_TEXT_COLUMNS) text[c] = (r[c] as Uint8Array | null) ?? null;
    return {
      seq: r.seq as number,
      scheme: r.scheme as number,
      at: r.at as number,
      duration_ms: r.duration_ms as number | null,
      prev_hash: r.prev_hash as string | null,
      hash: r.hash as string,
      text,
    };
  };

  function legacyDigestBefore(seq: number): LegacyDigest {
    const d = legacyDigester();
    for (const r of legacyBefore.iterate(seq) as IterableIterator<{ seq: number; hash: string }>) d.add(r.seq, r.hash);
    return d.done();
  }

  /** Legacy rows (unkeyed SHA-256, chained per run), checked under their own scheme. */
  function checkLegacy(
    rows: Iterable<Record<string, unknown>>,
    lastByRun: Map<string, string>,
  ): VerifyResult | undefined {
    for (const raw of rows) {
      const row = read(raw);
      const receipt = legacyReceipt(row);
      const prev = lastByRun.get(receipt.runId) ?? null;
      if (row.prev_hash !== prev)
        return fail(
          row.seq,
          `legacy receipt ${id(row.seq)}: prev_hash does not match the hash of its run's previous receipt (a receipt was removed, inserted or reordered)`,
        );
      if (receiptHash(prev, receipt) !== row.hash) {
        // The old scheme hashed the text before SQLite replaced lone surrogates with U+FFFD.
        const maybe = Object.values(receipt).some((v) => typeof v === "string" && v.includes("\ufffd"))
          ? "; it holds U+FFFD, so it may instead have held a lone surrogate, which the legacy scheme could not verify"
          : "";
        return fail(
          row.seq,
          `legacy receipt ${id(row.seq)}: content does not match its hash (the row was edited${maybe})`,
        );
      }
      lastByRun.set(receipt.runId, row.hash);
    }
    return undefined;
  }

  /** The keyed chain from `fromSeq` through `toSeq`, then the head. */
  function checkKeyed(
    fromSeq: number,
    expectedPrev: string,
    legacyChanged: boolean,
    toSeq = Number.MAX_SAFE_INTEGER,
  ): { result?: VerifyResult; count: number } {
    const recorded = readMeta(db, "key_id");
    if (recorded !== undefined && recorded !== o.keyId)
      return {
        result: fail(
          fromSeq,
          `the receipts are signed with key ${recorded}, but the key in use is ${o.keyId}: restore the key file that signed them`,
        ),
        count: 0,
      };
    let prev = expectedPrev;
    let count = 0;
    for (const raw of rowsFrom.iterate(fromSeq, toSeq) as IterableIterator<Record<string, unknown>>) {
      const row = read(raw);
      if (row.scheme !== SCHEME_KEYED)
        return {
          result: fail(
            row.seq,
            `${id(row.seq)} is marked as a legacy (unkeyed) receipt but comes after the keyed chain began: it was forged or relabelled`,
          ),
          count,
        };
      if (row.prev_hash !== prev) {
        const why =
          count === 0 && legacyChanged
            ? "the legacy receipts before the keyed chain changed since it began (one was removed, added or edited)"
            : `its prev_hash does not match the ${count === 0 ? "chain's start or the previous receipt" : "previous receipt"} (receipts before it were removed, inserted or reordered)`;
        return { result: fail(row.seq, `${id(row.seq)}: ${why}`), count };
      }
      const mac = receiptMac(o.key, prev, { seq: row.seq, at: row.at, durationMs: row.duration_ms, text: row.text });
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
    }
    return { result: checkHead(), count };
  }

  function checkHead(): VerifyResult | undefined {
    const head = o.head();
    if (!head) return undefined;
    const last = lastRow.get() as { seq: number; hash: string } | null;
    if (!last || last.seq < head.seq)
      return fail(
        head.seq,
        `the chain ends at ${last ? id(last.seq) : "nothing"}, but the head (${o.headWhere}) records ${id(head.seq)}: receipts at the end were removed`,
      );
    const at = rowAt.get(head.seq) as { hash: string } | null;
    if (!at || at.hash !== head.mac)
      return fail(
        head.seq,
        `${id(head.seq)} is not the receipt the head (${o.headWhere}) records: it was removed or replaced`,
      );
    return undefined;
  }

  /** Every receipt in the database, oldest first; names the first bad row. */
  function verifyAll(): VerifyResult {
    const start = (firstKeyed.get() as { seq: number | null }).seq;
    const lastByRun = new Map<string, string>();
    const legacyRows =
      start === null
        ? db.prepare(`${SELECT_STORED} ORDER BY seq`).iterate()
        : db.prepare(`${SELECT_STORED} WHERE seq < ? ORDER BY seq`).iterate(start);
    const legacyProblem = checkLegacy(legacyRows as IterableIterator<Record<string, unknown>>, lastByRun);
    if (legacyProblem) return legacyProblem;
    const digest = legacyDigestBefore(start ?? Number.MAX_SAFE_INTEGER);
    if (start === null) {
      const head = checkHead();
      return head ?? { ok: true, legacy: digest.count, keyed: 0, head: o.head() ? "checked" : "none" };
    }
    const { result, count } = checkKeyed(start, genesisMac(o.key, o.dbId, digest), digest.count > 0);
    return result ?? { ok: true, legacy: digest.count, keyed: count, head: o.head() ? "checked" : "none" };
  }

  /**
   * One run: its legacy rows under the old scheme, and the keyed chain from its first keyed row
   * through the row after its last (so an edit, insertion or removal among its rows, or of its
   * last rows, shows), then the head. Cost follows the run's span, not the database's size.
   * A run removed entirely is found by `verifyAll`.
   */
  function verifyRun(runId: string): VerifyResult {
    const legacyProblem = checkLegacy(runLegacy.iterate(runId) as IterableIterator<Record<string, unknown>>, new Map());
    if (legacyProblem) return legacyProblem;
    const from = (firstKeyedOfRun.get(runId) as { seq: number | null }).seq;
    if (from === null) return { ok: true, legacy: 0, keyed: 0, head: "none" };
    const pred = before.get(from) as { seq: number; hash: string; scheme: number } | null;
    let expected: string;
    let legacyChanged = false;
    if (pred && pred.scheme === SCHEME_KEYED) expected = pred.hash;
    else {
      const digest = legacyDigestBefore(from);
      expected = genesisMac(o.key, o.dbId, digest);
      legacyChanged = digest.count > 0;
    }
    const last = (lastOfRun.get(runId) as { seq: number }).seq;
    const next = (after.get(last) as { seq: number | null }).seq;
    const { result, count } = checkKeyed(from, expected, legacyChanged, next ?? last);
    return result ?? { ok: true, legacy: 0, keyed: count, head: o.head() ? "checked" : "none" };
  }

  return { verifyAll, verifyRun, legacyDigestBefore };
}

function legacyReceipt(row: StoredRow): Omit<Receipt, "hash" | "prevHash"> {
  const t = (c: MacTextColumn) => (row.text[c] === null ? undefined : decoder.decode(row.text[c]!));
  const r: Record<string, unknown> = {
    id: id(row.seq),
    seq: row.seq,
    runId: t("run_id"),
    callId: t("call_id"),
    sessionId: t("session_id"),
    toolPath: t("tool_path"),
    phase: t("phase"),
    approval: t("approval"),
    policy: t("policy"),
    decision: t("decision"),
    decidedBy: t("decided_by"),
    reason: t("reason"),
    inputPreview: t("input_preview"),
    outputPreview: t("output_preview"),
    error: t("error"),
    durationMs: row.duration_ms ?? undefined,
    at: row.at,
  };
  return r as unknown as Omit<Receipt, "hash" | "prevHash">;
}

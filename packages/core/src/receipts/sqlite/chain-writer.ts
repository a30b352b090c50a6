import type { Database } from "bun:sqlite";
import { openHeadWriter, readHead, type ChainHead } from "../head.ts";
import type { JournalRecord } from "./journal.ts";
import type { ReceiptKey } from "../key.ts";
import { genesisMac, receiptMac } from "../mac.ts";
import { metaValue, RECEIPT_INSERT_COLUMNS, readMeta, SCHEME_KEYED } from "./schema.ts";
import type { Receipt, ReceiptDraft } from "../types.ts";
import { createVerifier } from "./verify.ts";

/**
 * Appends receipts to the keyed chain over one connection: inside an IMMEDIATE transaction it reads
 * the chain's end, gives each record its seq, prev and mac, and inserts it; then it moves the
 * chain head kept outside the database (head.ts). The store uses one on its own connection, and
 * the fold worker (fold-worker.ts) one on the worker's.
 */
export interface ChainWriter {
  /** Seals and inserts the records in one transaction; throws with nothing written. */
  commit(batch: readonly JournalRecord[]): Receipt[];
  /** The last (seq, mac) committed here, or recorded outside the database when this writer started. */
  head(): ChainHead | undefined;
  /** Fails when the database records a different signing key (with `record`, records ours if none is). */
  checkKey(record: boolean): void;
  /** Writes the head file now if a commit moved the head since the last write. */
  writeHead(): void;
  close(): void;
}

export interface ChainWriterOptions {
  readonly key: ReceiptKey;
  readonly dbId: string;
  readonly headFile?: string;
  /**
   * "turn": the head file is written once per event-loop turn, off the commit's path (a syscall per
   * commit would cost a single append about a tenth of its time); a crash before it is written
   * leaves the head behind by that turn's commits, which the chain still checks.
   * "caller": when the caller calls `writeHead()` (the fold worker, after each batch's commit and
   * after it has published the batch as committed).
   */
  readonly headWrites: "turn" | "caller";
}

export function createChainWriter(db: Database, o: ChainWriterOptions): ChainWriter {
  const { key, dbId, headFile } = o;
  let head: ChainHead | undefined = headFile ? readHead(headFile) : undefined;
  let headWriter: ReturnType<typeof openHeadWriter> | undefined;
  const lastRowStmt = db.prepare("SELECT seq, hash, scheme FROM receipts ORDER BY seq DESC LIMIT 1");
  const insertStmt = db.prepare(
    `INSERT INTO receipts (${RECEIPT_INSERT_COLUMNS}) VALUES (${RECEIPT_INSERT_COLUMNS.split(",")
      .map(() => "?")
      .join(", ")})`,
  );
  let genesisVerifier: ReturnType<typeof createVerifier> | undefined;
  const genesis = () => {
    genesisVerifier ??= createVerifier({
      db,
      key: key.key,
      keyId: key.id,
      dbId,
      head: () => head,
      headWhere: headFile ?? "this process's memory",
    });
    return genesisMac(key.key, dbId, genesisVerifier.legacyDigestBefore(Number.MAX_SAFE_INTEGER));
  };

  let keyChecked = false;
  function checkKey(record: boolean): void {
    if (keyChecked) return;
    const recorded = record ? metaValue(db, "key_id", () => key.id) : readMeta(db, "key_id");
    if (recorded === undefined) return;
    if (recorded !== key.id)
      throw new Error(
        `the receipts in this database are signed with key ${recorded}, but ${key.path ?? "this process"} holds key ${key.id}: restore the key file that signed them, or move the database aside so a new chain starts`,
      );
    keyChecked = true;
  }

  const commitTx = db.transaction((batch: readonly JournalRecord[]): Receipt[] => {
    checkKey(true);
    const last = lastRowStmt.get() as { seq: number; hash: string; scheme: number } | null;
    let seq = last?.seq ?? 0;
    let prev: string;
    if (head && (!last || last.seq < head.seq || (last.seq === head.seq && last.hash !== head.mac))) {
      // The database lost receipts this machine committed: chain on from the recorded head, so
      // the gap stays visible to the verifier instead of being papered over.
      prev = head.mac;
      seq = Math.max(seq, head.seq);
    } else if (last && last.scheme === SCHEME_KEYED) prev = last.hash;
    else prev = genesis();
    const out: Receipt[] = [];
    for (const { draft, at } of batch) {
      seq++;
      const content = draftContent(draft, seq, at);
      const hash = receiptMac(key.key, prev, macFields(content));
      insertStmt.run(
        seq,
        content.runId,
        content.callId,
        content.sessionId ?? null,
        content.toolPath,
        content.phase,
        content.approval,
        content.policy,
        content.decision ?? null,
        content.decidedBy ?? null,
        content.reason ?? null,
        content.inputPreview ?? null,
        content.outputPreview ?? null,
        content.error ?? null,
        content.durationMs ?? null,
        at,
        prev,
        hash,
        SCHEME_KEYED,
        content.model ?? null,
      );
      out.push({ ...content, prevHash: prev, hash } as Receipt);
      prev = hash;
    }
    return out;
  });

  let headDirty = false;
  const writeHead = () => {
    if (!headDirty || !head || !headFile) return;
    headDirty = false;
    // Two writers keep one head (the store's and its fold worker's): never move it back.
    if ((readHeadOrUndefined(headFile)?.seq ?? -1) >= head.seq) return;
    (headWriter ??= openHeadWriter(headFile)).write(head);
  };

  return {
    commit(batch) {
      // Inside a caller's transaction our "commit" is a savepoint: the head moves only on a real commit.
      const outer = db.inTransaction;
      // IMMEDIATE: take the write lock before reading the chain's end, so seq and prev are ours.
      const written = commitTx.immediate(batch);
      const last = written.at(-1);
      if (last && !outer) {
        head = { seq: last.seq, mac: last.hash };
        if (headFile && !headDirty) {
          headDirty = true;
          if (o.headWrites === "turn") setImmediate(writeHead);
        }
      }
      return written;
    },
    head: () => head,
    checkKey,
    writeHead,
    close() {
      writeHead();
      headWriter?.close();
      headWriter = undefined;
      lastRowStmt.finalize();
      insertStmt.finalize();
    },
  };
}

/** A damaged head file is the verifier's to report; a writer just replaces it. */
function readHeadOrUndefined(file: string): ChainHead | undefined {
  try {
    return readHead(file);
  } catch {
    return undefined;
  }
}

/** `r_000123`: sortable, stable, short enough for a Discord line. */
export function receiptId(seq: number): string {
  return `r_${String(seq).padStart(6, "0")}`;
}

/** The draft's optional text fields. */
export const DRAFT_TEXT_FIELDS = [
  "decidedBy",
  "reason",
  "sessionId",
  "inputPreview",
  "outputPreview",
  "error",
  "model",
] as const;

/** The draft's fields plus id/seq/at; absent (undefined/null) fields are left out. */
export function draftContent(d: ReceiptDraft, seq: number, at: number): Omit<Receipt, "hash" | "prevHash"> {
  const c: Record<string, unknown> = {
    runId: d.runId,
    callId: d.callId,
    toolPath: d.toolPath,
    phase: d.phase,
    approval: d.approval,
    policy: d.policy,
  };
  if (d.decision != null) c.decision = d.decision;
  for (const f of DRAFT_TEXT_FIELDS) if (d[f] != null) c[f] = d[f];
  if (d.durationMs != null) c.durationMs = d.durationMs;
  c.id = receiptId(seq);
  c.seq = seq;
  c.at = at;
  return c as unknown as Omit<Receipt, "hash" | "prevHash">;
}

export function macFields(c: Omit<Receipt, "hash" | "prevHash">) {
  return {
    seq: c.seq,
    at: c.at,
    durationMs: c.durationMs ?? null,
    text: {
      run_id: c.runId,
      call_id: c.callId,
      session_id: c.sessionId ?? null,
      tool_path: c.toolPath,
      phase: c.phase,
      approval: c.approval,
      policy: c.policy,
      decision: c.decision ?? null,
      decided_by: c.decidedBy ?? null,
      reason: c.reason ?? null,
      input_preview: c.inputPreview ?? null,
      output_preview: c.outputPreview ?? null,
      error: c.error ?? null,
      model: c.model ?? null,
    },
  };
}

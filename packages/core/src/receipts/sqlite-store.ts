import type { Database, Statement } from "bun:sqlite";
import { toolPatternToRegExp } from "../tools/pattern.ts";
import { createRunBudgets } from "./bounds.ts";
import { headPath, openHeadWriter, readHead, type ChainHead } from "./head.ts";
import { type JournalRecord, openReceiptJournal, type ReceiptJournal } from "./journal.ts";
import { loadReceiptKey, processReceiptKey, type ReceiptKey } from "./key.ts";
import { genesisMac, receiptMac } from "./mac.ts";
import {
  ensureReceiptSchema,
  metaValue,
  RECEIPT_COLUMNS,
  RECEIPT_INSERT_COLUMNS,
  readMeta,
  type ReceiptRow,
  SCHEME_KEYED,
  SCHEME_LEGACY,
} from "./schema.ts";
import type { Receipt, ReceiptDraft, ReceiptQuery, ReceiptStore } from "./types.ts";
import { createVerifier } from "./verify.ts";

export interface SqliteReceiptStoreOptions {
  /** Clock for `at` (epoch ms); tests pin it. */
  readonly now?: () => number;
  /**
   * The user's config dir: holds the HMAC key (`receipts.key`, 0600, created on first start) and
   * the chain heads (`receipt-heads/`). Omitted: a key that lives only in this process (tests,
   * throwaway databases), with the head kept in memory.
   */
  readonly keyDir?: string;
  /**
   * Commit points write to the journal in `keyDir` (journal.ts) instead of committing to SQLite;
   * the journal is folded into SQLite in batches and before every read. The gateway sets it.
   * Without it (or without `keyDir`, or while another process owns the journal) every commit
   * point is a SQLite commit. Either way, a store that opens the database folds what a crashed
   * owner's journal still holds.
   */
  readonly journal?: boolean;
}

const DEFAULT_LIMIT = 200;
const PHASES = new Set(["requested", "approved", "denied", "started", "succeeded", "failed"]);
const APPROVALS = new Set(["auto", "required"]);
const POLICIES = new Set(["auto", "required", "deny"]);
const DECISIONS = new Set(["auto", "approved", "denied"]);

type Staged = JournalRecord;

/**
 * Receipts on bun:sqlite, in one keyed chain across all runs (see mac.ts, verify.ts, head.ts).
 *
 * Durability: `append` commits before it returns. `stage` queues a receipt for the next group
 * commit, which carries every receipt staged until then, from every run (it runs right after the
 * current task, or on the next event-loop turn once several runs are writing); `durable()` resolves once the commit holding everything staged so far is
 * done. A caller stages the receipts between two steps with effects outside the gateway and
 * awaits `durable()` right before such a step, so a crash never loses a receipt a later step
 * depended on. Reads commit what is staged first. The database is opened by `openDatabase()` in
 * WAL mode with synchronous=NORMAL: a commit survives a crash or SIGKILL of the process; only an
 * OS crash or power loss may lose the last few commits.
 *
 * The store does not own `db`: `close()` commits what is staged and releases its statements and
 * head file; the opener closes the database.
 */
export function createSqliteReceiptStore(db: Database, options: SqliteReceiptStoreOptions = {}): ReceiptStore {
  const now = options.now ?? Date.now;
  const key: ReceiptKey = options.keyDir !== undefined ? loadReceiptKey(options.keyDir) : processReceiptKey();
  ensureReceiptSchema(db);
  const dbId = metaValue(db, "db_id", () => `db_${crypto.randomUUID().replaceAll("-", "")}`);
  const headFile = key.dir ? headPath(key.dir, dbId) : undefined;
  // The last (seq, mac) this store committed or found recorded outside the database.
  let head: ChainHead | undefined = headFile ? readHead(headFile) : undefined;
  let headWriter: ReturnType<typeof openHeadWriter> | undefined;
  const budgets = createRunBudgets();

  const statements = new Map<string, Statement>();
  const prepare = (sql: string): Statement => {
    let st = statements.get(sql);
    if (!st) {
      st = db.prepare(sql);
      statements.set(sql, st);
    }
    return st;
  };

  const lastRowStmt = prepare("SELECT seq, hash, scheme FROM receipts ORDER BY seq DESC LIMIT 1");
  const insertStmt = prepare(
    `INSERT INTO receipts (${RECEIPT_INSERT_COLUMNS}) VALUES (${RECEIPT_INSERT_COLUMNS.split(",")
      .map(() => "?")
      .join(", ")})`,
  );
  const byRunStmt = prepare(`SELECT ${RECEIPT_COLUMNS} FROM receipts WHERE run_id = ? ORDER BY seq`);
  const verifier = createVerifier({
    db,
    key: key.key,
    keyId: key.id,
    dbId,
    head: () => (headFile ? readHead(headFile) : head),
    headWhere: headFile ?? "this process's memory",
  });

  let keyChecked = false;
  /** The database records the id of the key that signs it (set by the first commit). */
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

  const commitTx = db.transaction((batch: readonly Staged[]): Receipt[] => {
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
    else prev = genesisMac(key.key, dbId, verifier.legacyDigestBefore(Number.MAX_SAFE_INTEGER));
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
      );
      out.push({ ...content, prevHash: prev, hash } as Receipt);
      prev = hash;
    }
    return out;
  });

  let pending: Staged[] = [];
  let waiters: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];
  let scheduled = false;
  let deferTimer: ReturnType<typeof setTimeout> | undefined;
  // Receipts in the journal (durable) and not yet in SQLite; only a store that owns a journal has them.
  let journaled: Staged[] = [];
  let journal: ReceiptJournal | undefined;
  let foldTimer: ReturnType<typeof setTimeout> | undefined;

  /** A commit point: the staged receipts go to the journal when this store owns one, else to SQLite. */
  function commitPending(): void {
    if (!journal || pending.length === 0 || db.inTransaction) return void fold();
    if (deferTimer) clearTimeout(deferTimer);
    deferTimer = undefined;
    const batch = pending;
    const ws = waiters;
    pending = [];
    waiters = [];
    try {
      journal.append(batch);
    } catch {
      // The journal could not take them (disk full, I/O error): SQLite may.
      pending = batch.concat(pending);
      waiters = ws.concat(waiters);
      return void fold();
    }
    for (const r of batch) journaled.push(r);
    for (const w of ws) w.resolve();
    scheduleFold();
  }

  /**
   * Commits the journaled and the staged receipts (and `extra`) to SQLite in one transaction. On
   * failure they stay where they were (journaled, or queued for the next commit) and it throws.
   */
  function fold(extra?: Staged): Receipt[] {
    if (deferTimer) clearTimeout(deferTimer);
    if (foldTimer) clearTimeout(foldTimer);
    deferTimer = foldTimer = undefined;
    const fromJournal = journaled.length;
    const batch = [...journaled, ...pending, ...(extra ? [extra] : [])];
    const ws = waiters;
    journaled = [];
    pending = [];
    waiters = [];
    if (batch.length === 0) {
      for (const w of ws) w.resolve();
      return [];
    }
    // Inside a caller's transaction our "commit" is a savepoint: the head moves only on a real commit.
    const outer = db.inTransaction;
    let written: Receipt[];
    try {
      // IMMEDIATE: take the write lock before reading the chain's end, so seq and prev are ours.
      written = commitTx.immediate(batch);
    } catch (e) {
      journaled = batch.slice(0, fromJournal);
      pending = batch.slice(fromJournal, extra ? -1 : undefined).concat(pending);
      for (const w of ws) w.reject(e);
      if (journaled.length > 0) scheduleFold();
      throw e;
    }
    const last = written[written.length - 1]!;
    if (!outer) {
      head = { seq: last.seq, mac: last.hash };
      scheduleHeadWrite();
      // Emptied only after the commit: a crash in between leaves records that the next open finds committed.
      if (fromJournal > 0) journal?.clear();
    }
    for (const w of ws) w.resolve();
    return written;
  }

  // Journaled receipts reach SQLite in batches: FOLD_MS after the first, sooner once there are many.
  const foldLater = () => {
    foldTimer = undefined;
    try {
      fold();
    } catch {
      // still journaled (durable); retried on the next timer, and a read reports the error
    }
  };
  function scheduleFold(): void {
    if (journaled.length >= FOLD_ROWS) {
      if (foldTimer) clearTimeout(foldTimer);
      foldTimer = setTimeout(foldLater, 0);
    } else foldTimer ??= setTimeout(foldLater, FOLD_MS);
    foldTimer.unref?.();
  }

  // The head file is written once per event-loop turn, off the commit's path (a syscall per commit
  // would cost a single append about a tenth of its time). A crash before it is written leaves the
  // head behind by the commits of that turn: those rows are still checked by the chain.
  let headDirty = false;
  const writeHead = () => {
    if (!headDirty || !head || !headFile) return;
    headDirty = false;
    (headWriter ??= openHeadWriter(headFile)).write(head);
  };
  function scheduleHeadWrite(): void {
    if (!headFile || headDirty) return;
    headDirty = true;
    setImmediate(writeHead);
  }

  // Alone, a run's commit follows at once (a microtask: no event-loop turn added to its latency).
  // Once commits carry several runs, they wait for the next turn so every run's crossings that
  // arrive in this one share it.
  let shared = false;
  const runScheduled = () => {
    scheduled = false;
    const runs = new Set<string>();
    for (const p of pending) runs.add(p.draft.runId);
    shared = runs.size > 1 || waiters.length > 1;
    try {
      commitPending();
    } catch {
      // the waiters of this commit got the error; the receipts stay queued for the next one
    }
  };
  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    if (shared) setImmediate(runScheduled);
    else queueMicrotask(runScheduled);
  }

  function prepareDraft(draft: ReceiptDraft): Staged {
    validateDraft(draft);
    checkKey(false);
    return { draft: budgets.bound(draft), at: Math.trunc(now()) };
  }

  function append(draft: ReceiptDraft): Receipt {
    return fold(prepareDraft(draft)).at(-1)!;
  }

  function stage(draft: ReceiptDraft, options?: { readonly defer?: boolean }): void {
    pending.push(prepareDraft(draft));
    if (options?.defer) scheduleDeferred();
    else schedule();
  }

  // A deferred receipt (a call's outcome) waits for the next commit, which in a run of sequential
  // calls is the next call's `durable()` a fraction of a millisecond later: one commit per call
  // instead of two. The timer bounds how long it can wait when nothing else commits.
  const commitDeferred = () => {
    deferTimer = undefined;
    if (pending.length > 0 && !scheduled) schedule();
  };
  function scheduleDeferred(): void {
    deferTimer ??= setTimeout(commitDeferred, DEFER_MS);
  }

  function durable(): Promise<void> {
    if (pending.length === 0) return Promise.resolve();
    schedule();
    return new Promise((resolve, reject) => waiters.push({ resolve, reject }));
  }

  const flush = () => void ((pending.length > 0 || journaled.length > 0) && fold());

  function byRun(runId: string): Receipt[] {
    flush();
    return (byRunStmt.all(runId) as ReceiptRow[]).map(rowToReceipt);
  }

  function query(q: ReceiptQuery): Receipt[] {
    flush();
    const limit = q.limit ?? DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit <= 0)
      throw new RangeError(`receipt query: limit must be a positive integer, got ${q.limit}`);
    const where: string[] = [];
    const params: Array<string | number> = [];
    if (q.runId !== undefined) where.push("run_id = ?"), params.push(q.runId);
    if (q.callId !== undefined) where.push("call_id = ?"), params.push(q.callId);
    if (q.sessionId !== undefined) where.push("session_id = ?"), params.push(q.sessionId);
    if (q.phase !== undefined) {
      if (!PHASES.has(q.phase))
        throw new RangeError(
          `receipt query: phase must be one of ${[...PHASES].join(", ")}, got ${JSON.stringify(q.phase)}`,
        );
      // Literal for the outcome phases so their partial indexes apply (see schema.ts).
      if (q.phase === "failed" || q.phase === "denied") where.push(`phase = '${q.phase}'`);
      else where.push("phase = ?"), params.push(q.phase);
    }
    if (q.since !== undefined) where.push("at >= ?"), params.push(q.since);
    if (q.until !== undefined) where.push("at <= ?"), params.push(q.until);
    let confirm: RegExp | undefined;
    if (q.tool !== undefined) {
      if (!q.tool.includes("*")) where.push("tool_path = ?"), params.push(q.tool);
      else {
        // GLOB's `*` crosses dots, so it is a superset of the pattern; a single `*` must stay
        // inside one segment, which the pattern's own RegExp confirms row by row.
        where.push("tool_path GLOB ?");
        params.push(toSqlGlob(q.tool));
        if (q.tool.replaceAll("**", "").includes("*")) confirm = toolPatternToRegExp(q.tool);
      }
    }
    const filter = where.length ? ` WHERE ${where.join(" AND ")}` : "";
    const base = `SELECT ${RECEIPT_COLUMNS} FROM receipts${filter} ORDER BY seq DESC`;
    let rows: ReceiptRow[];
    if (!confirm) rows = prepare(`${base} LIMIT ?`).all(...params, limit) as ReceiptRow[];
    else {
      rows = [];
      for (const row of prepare(base).iterate(...params) as IterableIterator<ReceiptRow>) {
        if (!confirm.test(row.tool_path)) continue;
        rows.push(row);
        if (rows.length >= limit) break;
      }
    }
    return rows.reverse().map(rowToReceipt);
  }

  function verifyRun(runId: string): { ok: true } | { ok: false; brokenAt: string; reason: string } {
    flush();
    writeHead();
    const r = verifier.verifyRun(runId);
    return r.ok ? { ok: true } : r;
  }

  function verify() {
    flush();
    writeHead();
    return verifier.verifyAll();
  }

  function close(): void {
    flush();
    writeHead();
    for (const st of statements.values()) st.finalize();
    statements.clear();
    headWriter?.close();
    headWriter = undefined;
    journal?.close();
    journal = undefined;
  }

  if (key.dir) adoptJournal(key.dir);
  /** Takes the journal if no live process owns it, and commits what a crashed owner left in it. */
  function adoptJournal(dir: string): void {
    const opened = openReceiptJournal(dir, dbId);
    if (!opened) return;
    try {
      const committed = prepare(
        "SELECT 1 FROM receipts WHERE run_id = ? AND call_id = ? AND phase = ? AND at = ? LIMIT 1",
      );
      const missing = opened.leftover.filter((r, i) => {
        const problem = findDraftProblem(r.draft);
        if (problem)
          throw new Error(`${opened.journal.path} record ${i + 1}: ${problem}; restore the file from a backup`);
        return committed.get(r.draft.runId, r.draft.callId, r.draft.phase, r.at) === null;
      });
      journaled = missing;
      fold();
      opened.journal.clear();
    } catch (e) {
      opened.journal.close();
      throw e;
    }
    if (options.journal) journal = opened.journal;
    else opened.journal.close();
  }

  const info = () => ({
    dbId,
    keyId: key.id,
    keyPath: key.path,
    headPath: headFile,
    recordedKeyId: readMeta(db, "key_id"),
  });

  return { append, stage, durable, byRun, query, verifyRun, verify, info, close };
}

/** The longest a deferred receipt waits for another commit to carry it. */
const DEFER_MS = 2;
/** How long journaled receipts wait for SQLite, and how many make it fold at once. */
const FOLD_MS = 50;
const FOLD_ROWS = 1024;

/** `r_000123`: sortable, stable, short enough for a Discord line. */
export function receiptId(seq: number): string {
  return `r_${String(seq).padStart(6, "0")}`;
}

function toSqlGlob(pattern: string): string {
  let out = "";
  for (const ch of pattern.replace(/\*+/g, "*")) out += ch === "?" ? "[?]" : ch === "[" ? "[[]" : ch;
  return out;
}

const OPTIONAL_TEXT = ["decidedBy", "reason", "sessionId", "inputPreview", "outputPreview", "error"] as const;

/** The draft's fields plus id/seq/at; absent (undefined/null) fields are left out. */
function draftContent(d: ReceiptDraft, seq: number, at: number): Omit<Receipt, "hash" | "prevHash"> {
  const c: Record<string, unknown> = {
    runId: d.runId,
    callId: d.callId,
    toolPath: d.toolPath,
    phase: d.phase,
    approval: d.approval,
    policy: d.policy,
  };
  if (d.decision != null) c.decision = d.decision;
  for (const f of OPTIONAL_TEXT) if (d[f] != null) c[f] = d[f];
  if (d.durationMs != null) c.durationMs = d.durationMs;
  c.id = receiptId(seq);
  c.seq = seq;
  c.at = at;
  return c as unknown as Omit<Receipt, "hash" | "prevHash">;
}

function macFields(c: Omit<Receipt, "hash" | "prevHash">) {
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
    },
  };
}

/** Drops absent (undefined/null) fields so stored and read-back receipts compare equal. */
function compact<T extends object>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== null) out[k] = v;
  return out as T;
}

function rowToReceipt(row: ReceiptRow): Receipt {
  const r = compact({
    id: row.id,
    seq: row.seq,
    runId: row.run_id,
    callId: row.call_id,
    sessionId: row.session_id,
    toolPath: row.tool_path,
    phase: row.phase,
    approval: row.approval,
    policy: row.policy,
    decision: row.decision,
    decidedBy: row.decided_by,
    reason: row.reason,
    inputPreview: row.input_preview,
    outputPreview: row.output_preview,
    error: row.error,
    durationMs: row.duration_ms,
    at: row.at,
    hash: row.hash,
  });
  return { ...r, prevHash: row.prev_hash, ...(row.scheme === SCHEME_LEGACY ? { legacy: true } : {}) } as Receipt;
}

function validateDraft(d: ReceiptDraft): void {
  // Cheap checks first; messages are only built on failure (this runs on every append).
  const problem = findDraftProblem(d);
  if (problem) throw new TypeError(`receipt for ${d?.toolPath ?? "?"} (call ${d?.callId ?? "?"}): ${problem}`);
}

function findDraftProblem(d: ReceiptDraft): string | undefined {
  if (typeof d !== "object" || d === null) return "draft must be an object";
  for (const f of ["runId", "callId", "toolPath"] as const)
    if (typeof d[f] !== "string" || d[f].length === 0) return `${f} must be a non-empty string`;
  if (!PHASES.has(d.phase)) return `phase must be one of ${[...PHASES].join(", ")}, got ${JSON.stringify(d.phase)}`;
  if (!APPROVALS.has(d.approval)) return `approval must be "auto" or "required", got ${JSON.stringify(d.approval)}`;
  if (!POLICIES.has(d.policy)) return `policy must be "auto", "required" or "deny", got ${JSON.stringify(d.policy)}`;
  if (d.decision != null && !DECISIONS.has(d.decision))
    return `decision must be "auto", "approved" or "denied", got ${JSON.stringify(d.decision)}`;
  if (d.durationMs != null && !Number.isFinite(d.durationMs)) return "durationMs must be a finite number";
  for (const f of OPTIONAL_TEXT)
    if (d[f] != null && typeof d[f] !== "string") return `${f} must be a string when given`;
  return undefined;
}

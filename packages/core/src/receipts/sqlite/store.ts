import type { SecretSink } from "../secret-registry.ts";
import type { Database, Statement } from "bun:sqlite";
import { toolPatternToRegExp } from "../../tools/pattern.ts";
import { createRunBudgets } from "../bounds.ts";
import { createChainWriter, DRAFT_TEXT_FIELDS } from "./chain-writer.ts";
import { type FoldThread, startFoldThread } from "./fold-thread.ts";
import { headPath, readHead } from "../head.ts";
import { type JournalRecord, journalLines, openReceiptJournal, type ReceiptJournal } from "./journal.ts";
import { loadReceiptKey, processReceiptKey, type ReceiptKey } from "../key.ts";
import { receiptFromRow } from "../rows.ts";
import { ensureReceiptSchema, metaValue, RECEIPT_COLUMNS, readMeta, type ReceiptRow, SCHEME_LEGACY } from "./schema.ts";
import type { Receipt, ReceiptDraft, ReceiptQuery, VerifyResult } from "../types.ts";
import { createVerifier } from "./verify.ts";

/**
 * The SQLite receipt store's own synchronous handle. Production code reaches it through the ports
 * (`sqliteReceiptPorts`: `ReceiptLog` and `ReceiptReader`); tests of this folder use it directly.
 */
export interface SqliteReceiptStore {
  /** Appends and commits (with anything staged before it) before returning; never updates or deletes. */
  append(draft: ReceiptDraft): Receipt;
  /** See `ReceiptLog.stage`. */
  stage(draft: ReceiptDraft, options?: { readonly defer?: boolean }): void;
  /** Resolves once every receipt staged so far is committed; rejects if that commit failed. */
  durable(): Promise<void>;
  /** Gets every receipt staged or made durable so far into the database now (what the reads below do first). */
  sync(): void;
  /**
   * Resolves once every receipt staged so far is in the database without blocking the event loop
   * while it waits (the fold worker commits them; without one this commits here). A `byRun` of a
   * run that staged nothing since then reads at once, without waiting for other runs' receipts.
   */
  settled(): Promise<void>;
  /** A run's receipts in order; first commits what is staged, unless this run's are already in (see `settled`). */
  byRun(runId: string): Receipt[];
  query(q: ReceiptQuery): Receipt[];
  /** Checks a run's receipts: the keyed chain from its first receipt through the one after its last, and the head. */
  verifyRun(runId: string): { ok: true } | { ok: false; brokenAt: string; reason: string };
  /** Checks every receipt in the database and the chain head; names the first bad row. */
  verify(): VerifyResult;
  /** Where the chain's key and head live, for messages. */
  info(): { dbId: string; keyId: string; keyPath?: string; headPath?: string; recordedKeyId?: string };
  /** Commits what is staged; releases statements and the head file. */
  close(): void;
}

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
   * a worker thread folds the journal into SQLite in batches, and every read waits for it first.
   * The gateway sets it. Needs a database file (not `:memory:`).
   * Without it (or without `keyDir`, or while another process owns the journal) every commit
   * point is a SQLite commit. Either way, a store that opens the database folds what a crashed
   * owner's journal still holds.
   */
  readonly journal?: boolean;
  /** Where the key read from `keyDir` is registered for redaction (the gateway's secret registry). */
  readonly secrets?: SecretSink;
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
 * OS crash or power loss may lose the last few commits. With `journal`, a commit point is an
 * append to the journal instead (journal.ts: the same guarantee), and the fold worker
 * (fold-worker.ts, a thread with its own connection) commits the journal to SQLite in batches;
 * reads wait for it first.
 *
 * The store does not own `db`: `close()` commits what is staged and releases its statements and
 * head file; the opener closes the database.
 */
export function createSqliteReceiptStore(db: Database, options: SqliteReceiptStoreOptions = {}): SqliteReceiptStore {
  const now = options.now ?? Date.now;
  const key: ReceiptKey = options.keyDir !== undefined ? loadReceiptKey(options.keyDir) : processReceiptKey();
  options.secrets?.add("receipt-key", [Buffer.from(key.key).toString("hex")]);
  ensureReceiptSchema(db);
  const dbId = metaValue(db, "db_id", () => `db_${crypto.randomUUID().replaceAll("-", "")}`);
  const headFile = key.dir ? headPath(key.dir, dbId) : undefined;
  const budgets = createRunBudgets();
  const writer = createChainWriter(db, { key, dbId, headFile, headWrites: "turn" });

  const statements = new Map<string, Statement>();
  const prepare = (sql: string): Statement => {
    let st = statements.get(sql);
    if (!st) {
      st = db.prepare(sql);
      statements.set(sql, st);
    }
    return st;
  };
  const byRunStmt = prepare(`SELECT ${RECEIPT_COLUMNS} FROM receipts WHERE run_id = ? ORDER BY seq`);
  const verifier = createVerifier({
    db,
    key: key.key,
    keyId: key.id,
    dbId,
    head: () => (headFile ? readHead(headFile) : writer.head()),
    headWhere: headFile ?? "this process's memory",
  });

  let pending: Staged[] = [];
  /**
   * Receipts staged so far, the count as of each run's latest, and how many are known to be in
   * SQLite: a read of a run whose receipts are all in needs no commit (other runs' may be on the way).
   */
  let stagedCount = 0;
  let committedCount = 0;
  const runStagedAt = new Map<string, number>();
  const markCommitted = (upTo: number) => {
    committedCount = Math.max(committedCount, upTo);
    if (runStagedAt.size > 1_000) for (const [run, n] of runStagedAt) if (n <= committedCount) runStagedAt.delete(run);
  };
  let waiters: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];
  let scheduled = false;
  let deferTimer: ReturnType<typeof setTimeout> | undefined;
  // With a journal (journal.ts), commit points append to it and the fold worker (fold-thread.ts)
  // copies it into SQLite; without one, or while a caller's transaction is open, they commit here.
  let journal: ReceiptJournal | undefined;
  let thread: FoldThread | undefined;

  /** The staged receipts and their waiters, handed to a commit (the deferred timer is then moot). */
  function takePending() {
    if (deferTimer) clearTimeout(deferTimer);
    deferTimer = undefined;
    const taken = { batch: pending, ws: waiters };
    pending = [];
    waiters = [];
    return taken;
  }

  /** A commit point: the staged receipts go to the journal and the worker, or else into SQLite. */
  function commitPending(): void {
    if (!journalPending()) fold();
  }

  /** Appends the staged receipts to the journal and sends them to the worker; false if this store commits them itself. */
  function journalPending(): boolean {
    if (!journal || !thread || thread.dead() || db.inTransaction) return false;
    if (pending.length === 0) return true;
    const { batch, ws } = takePending();
    const text = journalLines(batch);
    try {
      journal.append(text);
    } catch {
      // The journal could not take them (disk full, I/O error): SQLite may, after what the worker holds.
      pending = batch.concat(pending);
      waiters = ws.concat(waiters);
      try {
        thread.foldNow();
      } catch {
        // the commit below reports the error, if SQLite has one
      }
      // A journal left ending in part of a record takes nothing more until it is emptied.
      clearWhenFolded();
      return false;
    }
    thread.send(text, batch);
    for (const w of ws) w.resolve();
    clearWhenFolded();
    return true;
  }

  // The journal starts over once the worker has committed everything sent to it. Emptying it is an
  // ftruncate (~50 µs on ext4 after an idle gap), so it waits for a quiet moment instead of
  // delaying the next commit point, which is often the first call of the next run.
  let clearTimer: ReturnType<typeof setTimeout> | undefined;
  function clearWhenFolded(): void {
    if (clearTimer) return;
    clearTimer = setTimeout(() => {
      clearTimer = undefined;
      if (!journal || !thread || thread.dead()) return;
      if (thread.outstanding() > 0) return clearWhenFolded();
      try {
        journal.clear();
      } catch {
        // its records are all in SQLite; a store that adopts the journal skips them
      }
    }, CLEAR_AFTER_MS);
    clearTimer.unref?.();
  }

  /**
   * Everything staged (and `extra`) in SQLite before it returns: through the worker when this store
   * has one, else in one transaction here. On failure the receipts stay where they were (in the
   * journal, or queued for the next commit) and it throws. Returns what it committed here, or the
   * last receipt the worker committed.
   */
  function fold(extra?: Staged): Receipt[] {
    if (extra) pending.push(extra);
    if (journalPending()) {
      // The worker has committed all it was sent: the rest is committed here, without a round trip.
      const unsent = thread!.takeUnsent();
      if (unsent) {
        let written: Receipt[];
        try {
          written = writer.commit(unsent.records);
        } catch (e) {
          thread!.send(unsent.text, unsent.records);
          throw e;
        }
        journal!.clear();
        return written;
      }
      let last: Receipt | undefined;
      try {
        last = thread!.foldNow();
      } catch (e) {
        // A worker that died while asked is not a failed commit: the journal still has it all.
        if (!thread!.dead()) throw e;
      }
      if (!thread!.dead()) {
        if (thread!.outstanding() === 0) journal!.clear();
        return last ? [last] : [];
      }
    }
    const adopted = journal && thread?.dead() ? adoptAbandoned() : [];
    const { batch, ws } = takePending();
    if (batch.length === 0) {
      for (const w of ws) w.resolve();
      return adopted;
    }
    let written: Receipt[];
    try {
      written = writer.commit(batch);
    } catch (e) {
      pending = (extra ? batch.slice(0, -1) : batch).concat(pending);
      for (const w of ws) w.reject(e);
      throw e;
    }
    for (const w of ws) w.resolve();
    return written;
  }

  /** The worker stopped: commit what it may not have, from the journal, here; returns what it wrote. */
  function adoptAbandoned(): Receipt[] {
    if (!journal || !thread) return [];
    const left = journal.read();
    thread.close();
    thread = undefined;
    const written = commitLeftover(left, journal.path);
    journal.clear();
    return written;
  }

  /** Commits the journal records that are not in SQLite yet (a crash may come between the two). */
  function commitLeftover(records: readonly Staged[], where: string): Receipt[] {
    const committed = prepare(
      "SELECT 1 FROM receipts WHERE run_id = ? AND call_id = ? AND phase = ? AND at = ? LIMIT 1",
    );
    const missing = records.filter((r, i) => {
      const problem = findDraftProblem(r.draft);
      if (problem) throw new Error(`${where} record ${i + 1}: ${problem}; restore the file from a backup`);
      return committed.get(r.draft.runId, r.draft.callId, r.draft.phase, r.at) === null;
    });
    return missing.length > 0 ? writer.commit(missing) : [];
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
    writer.checkKey(false);
    const staged = { draft: budgets.bound(draft), at: Math.trunc(now()) };
    runStagedAt.set(draft.runId, ++stagedCount);
    return staged;
  }

  function append(draft: ReceiptDraft): Receipt {
    const staged = prepareDraft(draft);
    const upTo = stagedCount;
    const written = fold(staged).at(-1)!;
    markCommitted(upTo);
    return written;
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

  const flush = () => {
    const upTo = stagedCount;
    if (pending.length > 0 || (thread !== undefined && thread.outstanding() > 0)) fold();
    markCommitted(upTo);
  };

  async function settled(): Promise<void> {
    const upTo = stagedCount;
    if (journalPending()) {
      try {
        await thread!.settled();
        return markCommitted(upTo);
      } catch {
        // the worker stopped: the commit below adopts what it held
      }
    }
    flush();
  }

  function byRun(runId: string): Receipt[] {
    if ((runStagedAt.get(runId) ?? 0) > committedCount) flush();
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
    writer.writeHead();
    const r = verifier.verifyRun(runId);
    return r.ok ? { ok: true } : r;
  }

  function verify() {
    flush();
    writer.writeHead();
    return verifier.verifyAll();
  }

  /** Commits what it can and releases everything; what could not be committed stays in the journal. */
  function close(): void {
    let failure: unknown;
    try {
      flush();
    } catch (e) {
      failure = e;
    }
    try {
      thread?.close();
    } catch (e) {
      failure ??= e;
    }
    thread = undefined;
    if (clearTimer) clearTimeout(clearTimer);
    clearTimer = undefined;
    for (const st of statements.values()) st.finalize();
    statements.clear();
    writer.close();
    journal?.close();
    journal = undefined;
    if (failure !== undefined) throw failure;
  }

  if (key.dir) adoptJournal(key.dir);
  /** Takes the journal if no live process owns it, and commits what a crashed owner left in it. */
  function adoptJournal(dir: string): void {
    const opened = openReceiptJournal(dir, dbId, { create: options.journal === true });
    if (!opened) return;
    try {
      commitLeftover(opened.leftover, opened.journal.path);
      opened.journal.clear();
      if (options.journal && db.filename && db.filename !== ":memory:")
        thread = startFoldThread({ path: db.filename, key, dbId, headFile });
    } catch (e) {
      opened.journal.close();
      throw e;
    }
    if (thread) journal = opened.journal;
    else opened.journal.close();
  }

  const info = () => ({
    dbId,
    keyId: key.id,
    keyPath: key.path,
    headPath: headFile,
    recordedKeyId: readMeta(db, "key_id"),
  });

  return { append, stage, durable, settled, sync: flush, byRun, query, verifyRun, verify, info, close };
}

/** How long after a commit point the journal is emptied if the worker has committed it all by then. */
const CLEAR_AFTER_MS = 100;

/** The longest a deferred receipt waits for another commit to carry it. */
const DEFER_MS = 2;

function toSqlGlob(pattern: string): string {
  let out = "";
  for (const ch of pattern.replace(/\*+/g, "*")) out += ch === "?" ? "[?]" : ch === "[" ? "[[]" : ch;
  return out;
}

function rowToReceipt(row: ReceiptRow): Receipt {
  return receiptFromRow(row, row.scheme === SCHEME_LEGACY);
}

export function validateDraft(d: ReceiptDraft): void {
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
  for (const f of DRAFT_TEXT_FIELDS)
    if (d[f] != null && typeof d[f] !== "string") return `${f} must be a string when given`;
  return undefined;
}

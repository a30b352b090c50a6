import type { Database, Statement } from "bun:sqlite";
import { toolPatternToRegExp } from "../tools/pattern.ts";
import { receiptHash } from "./hash.ts";
import { ensureReceiptSchema, RECEIPT_COLUMNS, RECEIPT_INSERT_COLUMNS, type ReceiptRow } from "./schema.ts";
import type { Receipt, ReceiptDraft, ReceiptQuery, ReceiptStore } from "./types.ts";

export interface SqliteReceiptStoreOptions {
  /** Clock for `at` (epoch ms); tests pin it. */
  readonly now?: () => number;
}

const DEFAULT_LIMIT = 200;
const PHASES = new Set(["requested", "approved", "denied", "started", "succeeded", "failed"]);
const APPROVALS = new Set(["auto", "required"]);
const POLICIES = new Set(["auto", "required", "deny"]);
const DECISIONS = new Set(["auto", "approved", "denied"]);
/** Past this many runs the last-hash cache is dropped; the per-run query refills it. */
const MAX_CACHED_RUNS = 10_000;

/**
 * Receipts on bun:sqlite. Each append is its own committed transaction, so a receipt is on disk
 * before the step it announces runs. The database is opened by `openDatabase()` in WAL mode with
 * synchronous=NORMAL: a commit is written to the WAL before `append` returns and survives a crash
 * or SIGKILL of the process; only an OS crash or power loss may lose the last few commits.
 *
 * The store does not own `db`: `close()` releases its statements, the opener closes the file.
 */
export function createSqliteReceiptStore(db: Database, options: SqliteReceiptStoreOptions = {}): ReceiptStore {
  const now = options.now ?? Date.now;
  ensureReceiptSchema(db);

  const statements = new Map<string, Statement>();
  const prepare = (sql: string): Statement => {
    let st = statements.get(sql);
    if (!st) {
      st = db.prepare(sql);
      statements.set(sql, st);
    }
    return st;
  };

  const lastSeqStmt = prepare("SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'receipts'), 0) AS seq");
  const lastHashOfRunStmt = prepare("SELECT hash FROM receipts WHERE run_id = ? ORDER BY seq DESC LIMIT 1");
  const insertStmt = prepare(`INSERT INTO receipts (${RECEIPT_INSERT_COLUMNS}) VALUES (${RECEIPT_INSERT_COLUMNS.split(",").map(() => "?").join(", ")})`);
  const byRunStmt = prepare(`SELECT ${RECEIPT_COLUMNS} FROM receipts WHERE run_id = ? ORDER BY seq`);

  // Last hash per run, valid only while no other connection has appended since our last append
  // (checked against the global sequence inside the write transaction).
  const lastHashByRun = new Map<string, string | null>();
  let knownSeq = -1;

  const currentSeq = (): number => (lastSeqStmt.get() as { seq: number }).seq;

  const appendTx = db.transaction((draft: ReceiptDraft): Receipt => {
    const lastSeq = currentSeq();
    if (lastSeq !== knownSeq || lastHashByRun.size > MAX_CACHED_RUNS) lastHashByRun.clear();
    let prevHash = lastHashByRun.get(draft.runId);
    if (prevHash === undefined) prevHash = (lastHashOfRunStmt.get(draft.runId) as { hash: string } | null)?.hash ?? null;
    const seq = lastSeq + 1;
    const content = draftContent(draft, seq, Math.trunc(now()));
    const hash = receiptHash(prevHash, content);
    const r = { ...content, prevHash, hash } as Receipt;
    insertStmt.run(
      r.seq, r.runId, r.callId, r.sessionId ?? null, r.toolPath, r.phase, r.approval, r.policy,
      r.decision ?? null, r.decidedBy ?? null, r.reason ?? null, r.inputPreview ?? null, r.outputPreview ?? null,
      r.error ?? null, r.durationMs ?? null, r.at, r.prevHash, r.hash,
    );
    return r;
  });

  function append(draft: ReceiptDraft): Receipt {
    validateDraft(draft);
    // IMMEDIATE: take the write lock before reading the sequence, so seq and prev_hash are ours.
    const r = appendTx.immediate(draft);
    knownSeq = r.seq;
    lastHashByRun.set(r.runId, r.hash);
    return r;
  }

  function byRun(runId: string): Receipt[] {
    return (byRunStmt.all(runId) as ReceiptRow[]).map(rowToReceipt);
  }

  function query(q: ReceiptQuery): Receipt[] {
    const limit = q.limit ?? DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit <= 0) throw new RangeError(`receipt query: limit must be a positive integer, got ${q.limit}`);
    const where: string[] = [];
    const params: Array<string | number> = [];
    if (q.runId !== undefined) (where.push("run_id = ?"), params.push(q.runId));
    if (q.callId !== undefined) (where.push("call_id = ?"), params.push(q.callId));
    if (q.sessionId !== undefined) (where.push("session_id = ?"), params.push(q.sessionId));
    if (q.phase !== undefined) {
      if (!PHASES.has(q.phase)) throw new RangeError(`receipt query: phase must be one of ${[...PHASES].join(", ")}, got ${JSON.stringify(q.phase)}`);
      // Literal for the outcome phases so their partial indexes apply (see schema.ts).
      if (q.phase === "failed" || q.phase === "denied") where.push(`phase = '${q.phase}'`);
      else (where.push("phase = ?"), params.push(q.phase));
    }
    if (q.since !== undefined) (where.push("at >= ?"), params.push(q.since));
    if (q.until !== undefined) (where.push("at <= ?"), params.push(q.until));
    let confirm: RegExp | undefined;
    if (q.tool !== undefined) {
      if (!q.tool.includes("*")) (where.push("tool_path = ?"), params.push(q.tool));
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
    let prev: string | null = null;
    let last: ReceiptRow | undefined;
    for (const row of byRunStmt.iterate(runId) as IterableIterator<ReceiptRow>) {
      if (row.prev_hash !== prev)
        return { ok: false, brokenAt: row.id, reason: `prev_hash of ${row.id} does not match the hash of the run's previous receipt (a receipt was removed, inserted or reordered)` };
      if (receiptHash(prev, rowToReceipt(row)) !== row.hash)
        return { ok: false, brokenAt: row.id, reason: `content of ${row.id} does not match its hash (the row was edited)` };
      prev = row.hash;
      last = row;
    }
    // This process remembers the last hash it appended; a shorter chain means the tail was cut.
    const remembered = lastHashByRun.get(runId);
    if (remembered && knownSeq === currentSeq() && remembered !== (last?.hash ?? null))
      return { ok: false, brokenAt: last?.id ?? runId, reason: `the run's last receipt is missing (the chain ends before the receipt this process appended last)` };
    return { ok: true };
  }

  function close(): void {
    for (const st of statements.values()) st.finalize();
    statements.clear();
  }

  return { append, byRun, query, verifyRun, close };
}

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
    runId: d.runId, callId: d.callId, toolPath: d.toolPath, phase: d.phase, approval: d.approval, policy: d.policy,
  };
  if (d.decision != null) c.decision = d.decision;
  for (const f of OPTIONAL_TEXT) if (d[f] != null) c[f] = d[f];
  if (d.durationMs != null) c.durationMs = d.durationMs;
  c.id = receiptId(seq);
  c.seq = seq;
  c.at = at;
  return c as unknown as Omit<Receipt, "hash" | "prevHash">;
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
  return { ...r, prevHash: row.prev_hash } as Receipt;
}

function validateDraft(d: ReceiptDraft): void {
  // Cheap checks first; messages are only built on failure (this runs on every append).
  const problem = findDraftProblem(d);
  if (problem) throw new TypeError(`receipt for ${d?.toolPath ?? "?"} (call ${d?.callId ?? "?"}): ${problem}`);
}

function findDraftProblem(d: ReceiptDraft): string | undefined {
  if (typeof d !== "object" || d === null) return "draft must be an object";
  for (const f of ["runId", "callId", "toolPath"] as const) if (typeof d[f] !== "string" || d[f].length === 0) return `${f} must be a non-empty string`;
  if (!PHASES.has(d.phase)) return `phase must be one of ${[...PHASES].join(", ")}, got ${JSON.stringify(d.phase)}`;
  if (!APPROVALS.has(d.approval)) return `approval must be "auto" or "required", got ${JSON.stringify(d.approval)}`;
  if (!POLICIES.has(d.policy)) return `policy must be "auto", "required" or "deny", got ${JSON.stringify(d.policy)}`;
  if (d.decision != null && !DECISIONS.has(d.decision)) return `decision must be "auto", "approved" or "denied", got ${JSON.stringify(d.decision)}`;
  if (d.durationMs != null && !Number.isFinite(d.durationMs)) return "durationMs must be a finite number";
  for (const f of OPTIONAL_TEXT) if (d[f] != null && typeof d[f] !== "string") return `${f} must be a string when given`;
  return undefined;
}

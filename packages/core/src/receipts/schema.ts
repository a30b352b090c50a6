import type { Database } from "bun:sqlite";

/**
 * The append-only `receipts` table. Append-only is enforced by SQLite itself (triggers), so no
 * code path — ours, a plugin's, or an operator with the sqlite3 shell who forgets — edits history
 * without first dropping a trigger, and even then the per-run hash chain shows the edit.
 */
export function ensureReceiptSchema(db: Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS receipts (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      -- r_000123: derived from seq, so unique without an index of its own (one less b-tree per append).
      id TEXT GENERATED ALWAYS AS ('r_' || printf('%06d', seq)) VIRTUAL,
      run_id TEXT NOT NULL,
      call_id TEXT NOT NULL,
      session_id TEXT,
      tool_path TEXT NOT NULL,
      phase TEXT NOT NULL CHECK (phase IN ('requested','approved','denied','started','succeeded','failed')),
      approval TEXT NOT NULL CHECK (approval IN ('auto','required')),
      policy TEXT NOT NULL CHECK (policy IN ('auto','required','deny')),
      decision TEXT CHECK (decision IS NULL OR decision IN ('auto','approved','denied')),
      decided_by TEXT,
      reason TEXT,
      input_preview TEXT,
      output_preview TEXT,
      error TEXT,
      duration_ms REAL,
      at INTEGER NOT NULL,
      prev_hash TEXT,
      hash TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS receipts_run ON receipts (run_id, seq);
    CREATE INDEX IF NOT EXISTS receipts_tool ON receipts (tool_path, seq);
    CREATE INDEX IF NOT EXISTS receipts_at ON receipts (at);
    CREATE INDEX IF NOT EXISTS receipts_session ON receipts (session_id, seq) WHERE session_id IS NOT NULL;
    -- Every index costs a page write per durable append. Outcome phases people look for
    -- (failed, denied) are indexed; the routine ones are common, so a newest-first scan finds
    -- them within a few rows.
    -- The query builder inlines 'failed'/'denied' as literals so these indexes apply. Call ids are looked up with their run (receipts_run) or by scan.
    -- (One partial index per phase: SQLite only uses a partial index when the query's terms imply
    -- its WHERE literally, and \`phase = 'failed'\` does not imply \`phase IN (...)\`.)
    CREATE INDEX IF NOT EXISTS receipts_failed ON receipts (seq) WHERE phase = 'failed';
    CREATE INDEX IF NOT EXISTS receipts_denied ON receipts (seq) WHERE phase = 'denied';
    CREATE TRIGGER IF NOT EXISTS receipts_no_update BEFORE UPDATE ON receipts
      BEGIN SELECT RAISE(ABORT, 'receipts are append-only: UPDATE is not allowed'); END;
    CREATE TRIGGER IF NOT EXISTS receipts_no_delete BEFORE DELETE ON receipts
      BEGIN SELECT RAISE(ABORT, 'receipts are append-only: DELETE is not allowed'); END;
  `);
}

/** Columns the store writes (`id` is generated from `seq`). */
export const RECEIPT_INSERT_COLUMNS =
  "seq, run_id, call_id, session_id, tool_path, phase, approval, policy, decision, decided_by, reason, input_preview, output_preview, error, duration_ms, at, prev_hash, hash";

/** Columns the store selects. */
export const RECEIPT_COLUMNS = `id, ${RECEIPT_INSERT_COLUMNS}`;

export interface ReceiptRow {
  seq: number;
  id: string;
  run_id: string;
  call_id: string;
  session_id: string | null;
  tool_path: string;
  phase: string;
  approval: string;
  policy: string;
  decision: string | null;
  decided_by: string | null;
  reason: string | null;
  input_preview: string | null;
  output_preview: string | null;
  error: string | null;
  duration_ms: number | null;
  at: number;
  prev_hash: string | null;
  hash: string;
}

import type { Database } from "bun:sqlite";

/** `scheme` of rows written before the keyed chain: unkeyed SHA-256, chained per run. */
export const SCHEME_LEGACY = 1;
/** `scheme` of rows in the keyed chain: HMAC-SHA256, one chain across all runs. */
export const SCHEME_KEYED = 2;

/**
 * The append-only `receipts` table and its `receipt_meta` (database id, key id).
 *
 * SQLite itself refuses edits (triggers), so no code path — ours, a plugin's, or an operator with
 * the sqlite3 shell — changes history without first dropping a trigger; the keyed chain shows any
 * change made after that. Conflict clauses are closed too: the only uniqueness constraint is `seq`
 * (no UNIQUE index may ever be added: `INSERT OR REPLACE` resolves a conflict on any of them by
 * deleting the old row without firing delete triggers), and `receipts_no_replace` refuses an insert
 * whose `seq` exists before the conflict is seen, so `INSERT OR REPLACE`, `REPLACE INTO` and
 * `INSERT … ON CONFLICT DO UPDATE` all fail. `UPDATE OR REPLACE` meets `receipts_no_update`.
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
      hash TEXT NOT NULL,
      scheme INTEGER NOT NULL DEFAULT ${SCHEME_LEGACY},
      model TEXT
    );
  `);
  // Databases made before the keyed chain: their rows stay, marked legacy by the column's default.
  const columns = db.prepare("SELECT name FROM pragma_table_info('receipts')").all() as Array<{ name: string }>;
  if (!columns.some((c) => c.name === "scheme"))
    db.exec(`ALTER TABLE receipts ADD COLUMN scheme INTEGER NOT NULL DEFAULT ${SCHEME_LEGACY}`);
  // #35: databases made before receipts named the model; their rows keep NULL (outside their MAC).
  if (!columns.some((c) => c.name === "model")) db.exec("ALTER TABLE receipts ADD COLUMN model TEXT");
  db.exec(`
    CREATE INDEX IF NOT EXISTS receipts_run ON receipts (run_id, seq);
    CREATE INDEX IF NOT EXISTS receipts_tool ON receipts (tool_path, seq);
    CREATE INDEX IF NOT EXISTS receipts_at ON receipts (at);
    CREATE INDEX IF NOT EXISTS receipts_session ON receipts (session_id, seq) WHERE session_id IS NOT NULL;
    -- Every index costs a page write per commit. Outcome phases people look for (failed, denied)
    -- are indexed; the routine ones are common, so a newest-first scan finds them within a few rows.
    -- The query builder inlines 'failed'/'denied' as literals so these indexes apply.
    -- (One partial index per phase: SQLite only uses a partial index when the query's terms imply
    -- its WHERE literally, and \`phase = 'failed'\` does not imply \`phase IN (...)\`.)
    CREATE INDEX IF NOT EXISTS receipts_failed ON receipts (seq) WHERE phase = 'failed';
    CREATE INDEX IF NOT EXISTS receipts_denied ON receipts (seq) WHERE phase = 'denied';
    CREATE TRIGGER IF NOT EXISTS receipts_no_update BEFORE UPDATE ON receipts
      BEGIN SELECT RAISE(ABORT, 'receipts are append-only: UPDATE is not allowed'); END;
    CREATE TRIGGER IF NOT EXISTS receipts_no_delete BEFORE DELETE ON receipts
      BEGIN SELECT RAISE(ABORT, 'receipts are append-only: DELETE is not allowed'); END;
    CREATE TRIGGER IF NOT EXISTS receipts_no_replace BEFORE INSERT ON receipts
      WHEN EXISTS (SELECT 1 FROM receipts WHERE seq = NEW.seq)
      BEGIN SELECT RAISE(ABORT, 'receipts are append-only: a receipt with this seq exists (REPLACE/upsert is not allowed)'); END;

    CREATE TABLE IF NOT EXISTS receipt_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TRIGGER IF NOT EXISTS receipt_meta_no_update BEFORE UPDATE ON receipt_meta
      BEGIN SELECT RAISE(ABORT, 'receipt_meta is append-only: UPDATE is not allowed'); END;
    CREATE TRIGGER IF NOT EXISTS receipt_meta_no_delete BEFORE DELETE ON receipt_meta
      BEGIN SELECT RAISE(ABORT, 'receipt_meta is append-only: DELETE is not allowed'); END;
    CREATE TRIGGER IF NOT EXISTS receipt_meta_no_replace BEFORE INSERT ON receipt_meta
      WHEN EXISTS (SELECT 1 FROM receipt_meta WHERE name = NEW.name)
      BEGIN SELECT RAISE(ABORT, 'receipt_meta is append-only: REPLACE/upsert is not allowed'); END;
  `);
}

/** Reads a `receipt_meta` value, setting it to `init()` first when absent. */
export function metaValue(db: Database, name: string, init: () => string): string {
  const get = () =>
    (db.prepare("SELECT value FROM receipt_meta WHERE name = ?").get(name) as { value: string } | null)?.value;
  const found = get();
  if (found !== undefined) return found;
  db.prepare(
    "INSERT INTO receipt_meta (name, value) SELECT ?1, ?2 WHERE NOT EXISTS (SELECT 1 FROM receipt_meta WHERE name = ?1)",
  ).run(name, init());
  return get()!;
}

export function readMeta(db: Database, name: string): string | undefined {
  return (db.prepare("SELECT value FROM receipt_meta WHERE name = ?").get(name) as { value: string } | null)?.value;
}

/** Columns the store writes (`id` is generated from `seq`). */
export const RECEIPT_INSERT_COLUMNS =
  "seq, run_id, call_id, session_id, tool_path, phase, approval, policy, decision, decided_by, reason, input_preview, output_preview, error, duration_ms, at, prev_hash, hash, scheme, model";

/** Columns the store selects. */
export const RECEIPT_COLUMNS = `id, ${RECEIPT_INSERT_COLUMNS}`;

/**
 * Text columns covered by the keyed MAC, in MAC order (numbers: seq, at, duration_ms). The ones in
 * MAC_COLUMNS_ABSENT_WHEN_NULL were added later: NULL leaves them out of the encoding, so rows
 * written before they existed keep their MACs.
 */
export const MAC_TEXT_COLUMNS = [
  "run_id",
  "call_id",
  "session_id",
  "tool_path",
  "phase",
  "approval",
  "policy",
  "decision",
  "decided_by",
  "reason",
  "input_preview",
  "output_preview",
  "error",
  "model",
] as const;
export type MacTextColumn = (typeof MAC_TEXT_COLUMNS)[number];
export const MAC_COLUMNS_ABSENT_WHEN_NULL: ReadonlySet<MacTextColumn> = new Set(["model"]);

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
  scheme: number;
  model: string | null;
}

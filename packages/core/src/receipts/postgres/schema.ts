/**
 * The receipts schema on PostgreSQL, as versioned migrations (db/postgres/migrate.ts). Migration i
 * is `RECEIPT_MIGRATIONS[i - 1]`; a change is a new entry at the end, never an edit of one applied.
 *
 * Append-only is the database's rule, not only ours: triggers refuse UPDATE, DELETE and TRUNCATE
 * on `receipts` and `receipt_meta` for every role but a superuser who first drops them (and the
 * keyed chain shows any change made after that). `INSERT … ON CONFLICT DO UPDATE` meets the UPDATE
 * trigger. Unlike SQLite's schema there are no legacy (unkeyed) rows: every row is scheme 2.
 */
export const RECEIPT_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE receipts (
    seq BIGINT PRIMARY KEY,
    id TEXT GENERATED ALWAYS AS ('r_' || CASE WHEN seq < 1000000 THEN lpad(seq::text, 6, '0') ELSE seq::text END) STORED,
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
    duration_ms DOUBLE PRECISION,
    at BIGINT NOT NULL,
    prev_hash TEXT,
    hash TEXT NOT NULL,
    scheme SMALLINT NOT NULL DEFAULT 2
  );
  CREATE INDEX receipts_run ON receipts (run_id, seq);
  CREATE INDEX receipts_tool ON receipts (tool_path, seq);
  CREATE INDEX receipts_at ON receipts (at);
  CREATE INDEX receipts_session ON receipts (session_id, seq) WHERE session_id IS NOT NULL;
  CREATE INDEX receipts_call ON receipts (call_id, seq);
  CREATE INDEX receipts_outcomes ON receipts (phase, seq) WHERE phase IN ('failed', 'denied');
  CREATE TABLE receipt_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE FUNCTION receipts_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION '% is append-only: % is not allowed', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege';
    END
  $$;
  CREATE TRIGGER receipts_append_only BEFORE UPDATE OR DELETE ON receipts
    FOR EACH ROW EXECUTE FUNCTION receipts_append_only();
  CREATE TRIGGER receipts_no_truncate BEFORE TRUNCATE ON receipts
    FOR EACH STATEMENT EXECUTE FUNCTION receipts_append_only();
  CREATE TRIGGER receipt_meta_append_only BEFORE UPDATE OR DELETE ON receipt_meta
    FOR EACH ROW EXECUTE FUNCTION receipts_append_only();
  CREATE TRIGGER receipt_meta_no_truncate BEFORE TRUNCATE ON receipt_meta
    FOR EACH STATEMENT EXECUTE FUNCTION receipts_append_only();
  `,
  // #35: the model that wrote a run's code (NULL in older rows, which leaves it out of their MAC).
  "ALTER TABLE receipts ADD COLUMN model TEXT",
];

/** Columns the store writes (`id` is generated from `seq`). */
export const PG_INSERT_COLUMNS = [
  "seq",
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
  "duration_ms",
  "at",
  "prev_hash",
  "hash",
  "scheme",
  "model",
] as const;

/** What the reads select, numbers as numbers (BIGINT comes back as text otherwise). */
export const PG_RECEIPT_COLUMNS =
  "id, seq::float8 AS seq, run_id, call_id, session_id, tool_path, phase, approval, policy, decision, decided_by, reason, input_preview, output_preview, error, duration_ms, at::float8 AS at, prev_hash, hash, scheme, model";

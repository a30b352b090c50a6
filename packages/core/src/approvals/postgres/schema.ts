/** The approvals schema on PostgreSQL, as versioned migrations (db/postgres/migrate.ts); append new ones at the end. */
export const APPROVAL_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE approvals (
    call_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    session_id TEXT,
    tool_path TEXT NOT NULL,
    description TEXT NOT NULL,
    input_preview TEXT NOT NULL,
    input_json TEXT,
    summary TEXT,
    files TEXT,
    code TEXT,
    requested_by TEXT,
    requested_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','approved','denied')),
    decided_by TEXT,
    decided_at BIGINT,
    reason TEXT
  );
  CREATE INDEX approvals_pending ON approvals (requested_at, call_id) WHERE status = 'pending';
  CREATE INDEX approvals_run ON approvals (run_id);
  CREATE TABLE approval_rules (
    seq BIGSERIAL PRIMARY KEY,
    tool_path TEXT NOT NULL,
    scope TEXT NOT NULL CHECK (scope IN ('session','global')),
    session_id TEXT,
    created_by TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT,
    revoked_at BIGINT,
    revoked_by TEXT,
    CHECK (scope = 'global' OR session_id IS NOT NULL)
  );
  `,
];

/** The approvals columns, numbers as numbers (BIGINT comes back as text otherwise). */
export const APPROVAL_COLUMNS =
  "call_id, run_id, session_id, tool_path, description, input_preview, input_json, summary, files, code, requested_by, requested_at::float8 AS requested_at, expires_at::float8 AS expires_at, status, decided_by, decided_at::float8 AS decided_at, reason";

export const RULE_COLUMNS =
  "seq::float8 AS seq, tool_path, scope, session_id, created_by, created_at::float8 AS created_at, expires_at::float8 AS expires_at, revoked_at::float8 AS revoked_at, revoked_by";

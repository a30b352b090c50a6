/**
 * The conversation tables on PostgreSQL, as versioned migrations (`migrate` from
 * @openassistant/core/db); the same tables and columns as sessions/sqlite/schema.ts, so the receipt
 * reader's joins (runs' conversations and turns) read them the same way on both backends.
 */
export const SESSION_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    surface TEXT NOT NULL,
    external_key TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    settings TEXT NOT NULL DEFAULT '{}'
  );
  CREATE TABLE turns (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    user_id TEXT,
    started_at BIGINT NOT NULL,
    finished_at BIGINT,
    stop_reason TEXT,
    unverified INTEGER,
    run_ids TEXT NOT NULL DEFAULT '[]',
    usage TEXT,
    request TEXT,
    model TEXT,
    answer TEXT
  );
  CREATE INDEX turns_session ON turns (session_id, started_at);
  CREATE TABLE turn_events (
    seq BIGSERIAL PRIMARY KEY,
    turn_id TEXT,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    at BIGINT NOT NULL
  );
  CREATE INDEX turn_events_turn ON turn_events (turn_id, seq);
  CREATE TABLE messages (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    seq INTEGER NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('user','assistant')),
    content TEXT NOT NULL,
    turn_id TEXT,
    run_ids TEXT NOT NULL DEFAULT '[]',
    at BIGINT NOT NULL,
    PRIMARY KEY (session_id, seq)
  );
  `,
];

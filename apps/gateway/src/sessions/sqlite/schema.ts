import type { Database } from "bun:sqlite";

/** Conversation tables; they live in the same SQLite file as receipts by default. */
export function ensureSessionSchema(db: Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS sessions (
      id TEXT PRIMARY KEY,
      surface TEXT NOT NULL,
      external_key TEXT NOT NULL UNIQUE,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      settings TEXT NOT NULL DEFAULT '{}'
    );
    CREATE TABLE IF NOT EXISTS turns (
      id TEXT PRIMARY KEY,
      session_id TEXT NOT NULL REFERENCES sessions(id),
      user_id TEXT,
      started_at INTEGER NOT NULL,
      finished_at INTEGER,
      stop_reason TEXT,
      unverified INTEGER,
      run_ids TEXT NOT NULL DEFAULT '[]',
      usage TEXT,
      request TEXT,
      model TEXT,
      answer TEXT
    );
    CREATE INDEX IF NOT EXISTS turns_session ON turns (session_id, started_at);
    -- Model-side facts of a turn that are not tool calls (profile rotations, model errors).
    CREATE TABLE IF NOT EXISTS turn_events (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      turn_id TEXT,
      type TEXT NOT NULL,
      data TEXT NOT NULL,
      at INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS turn_events_turn ON turn_events (turn_id, seq);
    CREATE TABLE IF NOT EXISTS messages (
      session_id TEXT NOT NULL REFERENCES sessions(id),
      seq INTEGER NOT NULL,
      role TEXT NOT NULL CHECK (role IN ('user','assistant')),
      content TEXT NOT NULL,
      turn_id TEXT,
      run_ids TEXT NOT NULL DEFAULT '[]',
      at INTEGER NOT NULL,
      PRIMARY KEY (session_id, seq)
    );
  `);
  // Databases made before the console showed turns: the columns the run page reads.
  const columns = new Set(
    (db.prepare("SELECT name FROM pragma_table_info('turns')").all() as Array<{ name: string }>).map((c) => c.name),
  );
  for (const column of ["request", "model", "answer"])
    if (!columns.has(column)) db.exec(`ALTER TABLE turns ADD COLUMN ${column} TEXT`);
}

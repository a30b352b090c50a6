import type { Database } from "bun:sqlite";

/** Whether the database has a table of this name (a fresh file has none until a store opens it). */
export function hasTable(db: Database, name: string): boolean {
  return db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== null;
}

/** Throws unless this process can take the write lock and create a table (rolled back: nothing stays). */
export function probeWritable(db: Database): void {
  db.exec("BEGIN IMMEDIATE");
  try {
    db.exec("CREATE TABLE IF NOT EXISTS doctor_probe (x INTEGER)");
  } finally {
    db.exec("ROLLBACK");
  }
}

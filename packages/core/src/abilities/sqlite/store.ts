import type { Database } from "bun:sqlite";
import type { AbilityRun, AbilityRunStore } from "../run.ts";

/** Ability runs in the gateway's SQLite file: one row per run, its record as JSON, replaced whole by each save. */
export function createSqliteAbilityRunStore(db: Database): AbilityRunStore {
  db.exec(`CREATE TABLE IF NOT EXISTS ability_runs (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    session_id TEXT,
    status TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    record TEXT NOT NULL
  )`);
  const upsert = db.prepare(
    `INSERT INTO ability_runs (id, name, session_id, status, started_at, updated_at, record) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at, record = excluded.record`,
  );
  const one = db.prepare("SELECT record FROM ability_runs WHERE id = ?");
  return {
    async save(run) {
      upsert.run(
        run.id,
        run.ability.name,
        run.sessionId ?? null,
        run.status,
        run.startedAt,
        run.updatedAt,
        JSON.stringify(run),
      );
    },
    async get(id) {
      const row = one.get(id) as { record: string } | null;
      return row ? (JSON.parse(row.record) as AbilityRun) : undefined;
    },
    async list(filter = {}) {
      const where: string[] = [];
      const args: (string | number)[] = [];
      if (filter.status) {
        where.push("status = ?");
        args.push(filter.status);
      }
      if (filter.sessionId) {
        where.push("session_id = ?");
        args.push(filter.sessionId);
      }
      const sql = `SELECT record FROM ability_runs ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY started_at DESC, id DESC LIMIT ?`;
      const rows = db.prepare(sql).all(...args, filter.limit ?? 100) as { record: string }[];
      return rows.map((r) => JSON.parse(r.record) as AbilityRun);
    },
  };
}

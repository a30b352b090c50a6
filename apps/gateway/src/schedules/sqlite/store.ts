import type { Database } from "bun:sqlite";
import type { ScheduleStore } from "../store.ts";
import { definitionText, occurrenceOf, scheduleOf, type OccurrenceRow, type ScheduleRow } from "../rows.ts";

/** Schedules and occurrences (store.ts) in the gateway's SQLite file; the occurrence's key is its primary key. */
export function createSqliteScheduleStore(db: Database): ScheduleStore {
  db.exec(`CREATE TABLE IF NOT EXISTS schedules (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    definition TEXT NOT NULL,
    paused INTEGER NOT NULL DEFAULT 0,
    removed_at INTEGER,
    checked_through INTEGER NOT NULL,
    failures INTEGER NOT NULL DEFAULT 0,
    backoff_until INTEGER,
    last_outcome TEXT,
    last_at INTEGER
  )`);
  db.exec(`CREATE TABLE IF NOT EXISTS schedule_occurrences (
    schedule_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    status TEXT NOT NULL,
    run_id TEXT NOT NULL,
    claimed_by TEXT NOT NULL,
    claimed_at INTEGER NOT NULL,
    finished_at INTEGER,
    turn_id TEXT,
    detail TEXT,
    PRIMARY KEY (schedule_id, at)
  )`);
  const insert = db.prepare(
    "INSERT OR IGNORE INTO schedules (id, name, definition, checked_through) VALUES (?, ?, ?, ?)",
  );
  const declare = db.prepare(
    `INSERT INTO schedules (id, name, definition, checked_through) VALUES (?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET name = excluded.name, definition = excluded.definition, removed_at = NULL`,
  );
  const one = db.prepare("SELECT * FROM schedules WHERE id = ?");
  const live = db.prepare("SELECT * FROM schedules WHERE removed_at IS NULL ORDER BY rowid");
  const all = db.prepare("SELECT * FROM schedules ORDER BY rowid");
  const pause = db.prepare("UPDATE schedules SET paused = ? WHERE id = ? AND removed_at IS NULL");
  const remove = db.prepare("UPDATE schedules SET removed_at = ? WHERE id = ? AND removed_at IS NULL");
  const claim = db.prepare(
    `INSERT OR IGNORE INTO schedule_occurrences (schedule_id, at, status, run_id, claimed_by, claimed_at, finished_at, detail)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const finish = db.prepare(
    `UPDATE schedule_occurrences SET status = ?, finished_at = ?, turn_id = ?, detail = ?
     WHERE schedule_id = ? AND at = ? AND status = 'running'`,
  );
  const running = db.prepare("SELECT * FROM schedule_occurrences WHERE status = 'running' ORDER BY at");
  const refire = db.prepare(
    `UPDATE schedule_occurrences SET run_id = ?, claimed_by = ?, claimed_at = ?
     WHERE schedule_id = ? AND at = ? AND run_id = ? AND status = 'running'`,
  );
  const strand = db.prepare(
    `UPDATE schedule_occurrences SET status = 'failed', finished_at = ?, detail = ?
     WHERE schedule_id = ? AND at = ? AND run_id = ? AND status = 'running'`,
  );
  const history = db.prepare("SELECT * FROM schedule_occurrences WHERE schedule_id = ? ORDER BY at DESC LIMIT ?");
  return {
    async add(d) {
      return insert.run(d.id, d.name, definitionText(d), d.createdAt).changes > 0;
    },
    async declare(d) {
      declare.run(d.id, d.name, definitionText(d), d.createdAt);
    },
    async get(id) {
      const row = one.get(id) as ScheduleRow | null;
      return row ? scheduleOf(row) : undefined;
    },
    async list(options) {
      return ((options?.removed ? all : live).all() as ScheduleRow[]).map(scheduleOf);
    },
    async setPaused(id, paused) {
      return pause.run(paused ? 1 : 0, id).changes > 0;
    },
    async remove(id, at) {
      return remove.run(at, id).changes > 0;
    },
    async claim(c) {
      const finishedAt = c.status === "skipped" ? c.claimedAt : null;
      return (
        claim.run(c.scheduleId, c.at, c.status, c.runId, c.claimedBy, c.claimedAt, finishedAt, c.detail ?? null)
          .changes > 0
      );
    },
    async finish(scheduleId, at, end) {
      finish.run(end.status, end.finishedAt, end.turnId ?? null, end.detail ?? null, scheduleId, at);
    },
    async progress(id, p) {
      db.transaction(() => {
        if (p.checkedThrough !== undefined)
          db.run("UPDATE schedules SET checked_through = MAX(checked_through, ?) WHERE id = ?", [p.checkedThrough, id]);
        if (p.failures !== undefined) db.run("UPDATE schedules SET failures = ? WHERE id = ?", [p.failures, id]);
        if (p.backoffUntil !== undefined)
          db.run("UPDATE schedules SET backoff_until = ? WHERE id = ?", [p.backoffUntil, id]);
        if (p.lastOutcome !== undefined)
          db.run("UPDATE schedules SET last_outcome = ?, last_at = ? WHERE id = ?", [
            p.lastOutcome,
            p.lastAt ?? null,
            id,
          ]);
      })();
    },
    async running() {
      return (running.all() as OccurrenceRow[]).map(occurrenceOf);
    },
    async retake(scheduleId, at, fromRunId, n) {
      const changed =
        n.status === "running"
          ? refire.run(n.runId, n.claimedBy, n.claimedAt, scheduleId, at, fromRunId)
          : strand.run(n.finishedAt, n.detail, scheduleId, at, fromRunId);
      return changed.changes > 0;
    },
    async history(scheduleId, limit = 50) {
      return (history.all(scheduleId, limit) as OccurrenceRow[]).map(occurrenceOf);
    },
  };
}

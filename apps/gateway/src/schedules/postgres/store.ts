import { migrate, type Postgres } from "@openassistant/core/db";
import type { ScheduleStore } from "../store.ts";
import { definitionText, occurrenceOf, scheduleOf, type OccurrenceRow, type ScheduleRow } from "../rows.ts";

/** The schedules' tables on PostgreSQL, as versioned migrations (the columns of sqlite/store.ts). */
export const SCHEDULE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE schedules (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    definition TEXT NOT NULL,
    paused BOOLEAN NOT NULL DEFAULT FALSE,
    removed_at BIGINT,
    checked_through BIGINT NOT NULL,
    failures INTEGER NOT NULL DEFAULT 0,
    backoff_until BIGINT,
    last_outcome TEXT,
    last_at BIGINT,
    seq BIGSERIAL
  );
  CREATE TABLE schedule_occurrences (
    schedule_id TEXT NOT NULL,
    at BIGINT NOT NULL,
    status TEXT NOT NULL,
    run_id TEXT NOT NULL,
    claimed_by TEXT NOT NULL,
    claimed_at BIGINT NOT NULL,
    finished_at BIGINT,
    turn_id TEXT,
    detail TEXT,
    PRIMARY KEY (schedule_id, at)
  );
  `,
];

/** PostgreSQL text cannot hold U+0000 (as receipts do: stored as U+2400). */
const pgText = (s: string) => s.replaceAll("\u0000", "\u2400");

/** Schedules and occurrences (store.ts) on PostgreSQL, migrated first; a claim is `INSERT … ON CONFLICT DO NOTHING`. */
export async function createPgScheduleStore(sql: Postgres): Promise<ScheduleStore> {
  await migrate(sql, "schedules", SCHEDULE_MIGRATIONS);
  return {
    async add(d) {
      const rows = await sql`INSERT INTO schedules (id, name, definition, checked_through)
        VALUES (${d.id}, ${pgText(d.name)}, ${pgText(definitionText(d))}, ${d.createdAt})
        ON CONFLICT (id) DO NOTHING RETURNING id`;
      return rows.length > 0;
    },
    async declare(d) {
      await sql`INSERT INTO schedules (id, name, definition, checked_through)
        VALUES (${d.id}, ${pgText(d.name)}, ${pgText(definitionText(d))}, ${d.createdAt})
        ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, definition = EXCLUDED.definition, removed_at = NULL`;
    },
    async get(id) {
      const rows: ScheduleRow[] = await sql`SELECT * FROM schedules WHERE id = ${id}`;
      return rows[0] ? scheduleOf(rows[0]) : undefined;
    },
    async list(options) {
      const rows: ScheduleRow[] = options?.removed
        ? await sql`SELECT * FROM schedules ORDER BY seq`
        : await sql`SELECT * FROM schedules WHERE removed_at IS NULL ORDER BY seq`;
      return rows.map(scheduleOf);
    },
    async setPaused(id, paused) {
      const rows =
        await sql`UPDATE schedules SET paused = ${paused} WHERE id = ${id} AND removed_at IS NULL RETURNING id`;
      return rows.length > 0;
    },
    async remove(id, at) {
      const rows =
        await sql`UPDATE schedules SET removed_at = ${at} WHERE id = ${id} AND removed_at IS NULL RETURNING id`;
      return rows.length > 0;
    },
    async claim(c) {
      const finishedAt = c.status === "skipped" ? c.claimedAt : null;
      const rows = await sql`INSERT INTO schedule_occurrences
        (schedule_id, at, status, run_id, claimed_by, claimed_at, finished_at, detail)
        VALUES (${c.scheduleId}, ${c.at}, ${c.status}, ${c.runId}, ${c.claimedBy}, ${c.claimedAt}, ${finishedAt},
          ${c.detail === undefined ? null : pgText(c.detail)})
        ON CONFLICT (schedule_id, at) DO NOTHING RETURNING at`;
      return rows.length > 0;
    },
    async finish(scheduleId, at, end) {
      await sql`UPDATE schedule_occurrences SET status = ${end.status}, finished_at = ${end.finishedAt},
        turn_id = ${end.turnId ?? null}, detail = ${end.detail === undefined ? null : pgText(end.detail)}
        WHERE schedule_id = ${scheduleId} AND at = ${at} AND status = 'running'`;
    },
    async progress(id, p) {
      await sql.begin(async (tx) => {
        if (p.checkedThrough !== undefined)
          await tx`UPDATE schedules SET checked_through = GREATEST(checked_through, ${p.checkedThrough}) WHERE id = ${id}`;
        if (p.failures !== undefined) await tx`UPDATE schedules SET failures = ${p.failures} WHERE id = ${id}`;
        if (p.backoffUntil !== undefined)
          await tx`UPDATE schedules SET backoff_until = ${p.backoffUntil} WHERE id = ${id}`;
        if (p.lastOutcome !== undefined)
          await tx`UPDATE schedules SET last_outcome = ${p.lastOutcome}, last_at = ${p.lastAt ?? null} WHERE id = ${id}`;
      });
    },
    async running() {
      const rows: OccurrenceRow[] = await sql`SELECT * FROM schedule_occurrences WHERE status = 'running' ORDER BY at`;
      return rows.map(occurrenceOf);
    },
    async retake(scheduleId, at, fromRunId, n) {
      const rows =
        n.status === "running"
          ? await sql`UPDATE schedule_occurrences SET run_id = ${n.runId}, claimed_by = ${n.claimedBy}, claimed_at = ${n.claimedAt}
              WHERE schedule_id = ${scheduleId} AND at = ${at} AND run_id = ${fromRunId} AND status = 'running' RETURNING at`
          : await sql`UPDATE schedule_occurrences SET status = 'failed', finished_at = ${n.finishedAt}, detail = ${pgText(n.detail)}
              WHERE schedule_id = ${scheduleId} AND at = ${at} AND run_id = ${fromRunId} AND status = 'running' RETURNING at`;
      return rows.length > 0;
    },
    async history(scheduleId, limit = 50) {
      const rows: OccurrenceRow[] =
        await sql`SELECT * FROM schedule_occurrences WHERE schedule_id = ${scheduleId} ORDER BY at DESC LIMIT ${limit}`;
      return rows.map(occurrenceOf);
    },
  };
}

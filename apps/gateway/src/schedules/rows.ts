import type { OccurrenceStatus, Occurrence, Schedule, ScheduleDefinition } from "./types.ts";

/** A schedule's row as both backends store it (the definition's parts as JSON text). */
export interface ScheduleRow {
  id: string;
  name: string;
  definition: string;
  paused: number | boolean;
  removed_at: number | string | null;
  checked_through: number | string;
  failures: number;
  backoff_until: number | string | null;
  last_outcome: string | null;
  last_at: number | string | null;
}

export interface OccurrenceRow {
  schedule_id: string;
  at: number | string;
  status: string;
  run_id: string;
  claimed_by: string;
  claimed_at: number | string;
  finished_at: number | string | null;
  turn_id: string | null;
  detail: string | null;
}

/** The definition as stored: everything but the id and name, which have columns of their own. */
export function definitionText(d: ScheduleDefinition): string {
  const { id: _id, name: _name, ...rest } = d;
  return JSON.stringify(rest);
}

const num = (v: number | string) => Number(v);
const opt = (v: number | string | null) => (v === null ? undefined : Number(v));

export function scheduleOf(row: ScheduleRow): Schedule {
  const rest = JSON.parse(row.definition) as Omit<ScheduleDefinition, "id" | "name">;
  const removedAt = opt(row.removed_at);
  const backoffUntil = opt(row.backoff_until);
  const lastAt = opt(row.last_at);
  return {
    id: row.id,
    name: row.name,
    ...rest,
    paused: Boolean(row.paused),
    ...(removedAt !== undefined ? { removedAt } : {}),
    checkedThrough: num(row.checked_through),
    failures: row.failures,
    ...(backoffUntil !== undefined ? { backoffUntil } : {}),
    ...(row.last_outcome ? { lastOutcome: row.last_outcome as OccurrenceStatus } : {}),
    ...(lastAt !== undefined ? { lastAt } : {}),
  };
}

export function occurrenceOf(row: OccurrenceRow): Occurrence {
  const finishedAt = opt(row.finished_at);
  return {
    scheduleId: row.schedule_id,
    at: num(row.at),
    status: row.status as OccurrenceStatus,
    runId: row.run_id,
    claimedBy: row.claimed_by,
    claimedAt: num(row.claimed_at),
    ...(finishedAt !== undefined ? { finishedAt } : {}),
    ...(row.turn_id ? { turnId: row.turn_id } : {}),
    ...(row.detail ? { detail: row.detail } : {}),
  };
}

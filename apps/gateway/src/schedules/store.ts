import type { Occurrence, OccurrenceStatus, Schedule, ScheduleDefinition } from "./types.ts";

/** What a gateway records when it takes an occurrence (fired now, or skipped). */
export interface OccurrenceClaim {
  readonly scheduleId: string;
  readonly at: number;
  readonly status: "running" | "skipped";
  readonly runId: string;
  readonly claimedBy: string;
  readonly claimedAt: number;
  readonly detail?: string;
}

/** How a fired occurrence ended. */
export interface OccurrenceEnd {
  readonly status: Exclude<OccurrenceStatus, "running" | "skipped">;
  readonly finishedAt: number;
  readonly turnId?: string;
  readonly detail?: string;
}

/**
 * How a `running` occurrence whose gateway stopped is settled: fired again here (a new run id,
 * under the same occurrence key) or failed.
 */
export type OccurrenceRetake =
  | { readonly status: "running"; readonly runId: string; readonly claimedBy: string; readonly claimedAt: number }
  | { readonly status: "failed"; readonly finishedAt: number; readonly detail: string };

/** The state a schedule's occurrences leave (each field only when given). */
export interface ScheduleProgress {
  /** Raised only: a lower value (another gateway's older tick) changes nothing. */
  readonly checkedThrough?: number;
  readonly failures?: number;
  /** `null` clears it. */
  readonly backoffUntil?: number | null;
  readonly lastOutcome?: OccurrenceStatus;
  readonly lastAt?: number;
}

/**
 * Schedules and their occurrences (#33). **One row per occurrence**: `claim` inserts the row keyed
 * by (schedule, occurrence time) and tells whether this caller won it, so two gateways on one
 * database never both run an occurrence. On SQLite (`sqlite/store.ts`) and PostgreSQL
 * (`postgres/store.ts`); `apps/gateway/test/contracts/schedule-store.ts` is the suite both pass.
 */
export interface ScheduleStore {
  /** Adds a schedule; false (nothing changed) when its id exists. */
  add(definition: ScheduleDefinition): Promise<boolean>;
  /**
   * Adds or updates a schedule declared in the config: its definition is replaced, its state
   * (occurrences handled, failures, paused) kept; a config schedule removed before comes back.
   */
  declare(definition: ScheduleDefinition): Promise<void>;
  get(id: string): Promise<Schedule | undefined>;
  /** Every schedule not removed (with `removed`, those too), oldest first. */
  list(options?: { readonly removed?: boolean }): Promise<Schedule[]>;
  /** False when there is no such schedule (or it was removed). */
  setPaused(id: string, paused: boolean): Promise<boolean>;
  /** Marks it removed (its occurrences stay, for the history); false when unknown or removed already. */
  remove(id: string, at: number): Promise<boolean>;
  /** Takes an occurrence: true only for the caller whose row was inserted. */
  claim(claim: OccurrenceClaim): Promise<boolean>;
  /** Records how a running occurrence ended (a finished one is left as it is). */
  finish(scheduleId: string, at: number, end: OccurrenceEnd): Promise<void>;
  progress(scheduleId: string, progress: ScheduleProgress): Promise<void>;
  /** Every occurrence still `running` (any gateway's), oldest first. */
  running(): Promise<Occurrence[]>;
  /** Settles a `running` occurrence fired as `fromRunId`: true only for the caller who moved it. */
  retake(scheduleId: string, at: number, fromRunId: string, next: OccurrenceRetake): Promise<boolean>;
  /** The newest `limit` (default 50) occurrences of a schedule, newest first. */
  history(scheduleId: string, limit?: number): Promise<Occurrence[]>;
}

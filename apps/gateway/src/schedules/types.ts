/**
 * Schedules (#33, docs/schedules.md): the assistant acts at a time. A schedule says *when*
 * (`cron`, a one-shot `at`, or an interval `every`) in an IANA time zone, *what* runs (a prompt in a
 * conversation, or an ability run started there), what happens to occurrences
 * missed while no gateway ran, and which tools its runs may call.
 */

/** When a schedule fires. */
export type When =
  /** A cron pattern, 5 fields (minute first) or 6 (seconds first), evaluated in `timeZone`. */
  | { readonly cron: string }
  /** One occurrence: an ISO date-time; without an offset it is read in `timeZone`. */
  | { readonly at: string }
  /** Every interval (`30s`, `15m`, `2h`, `1d`), counted from the schedule's creation. */
  | { readonly every: string };

/** What a fire runs: a prompt as a turn in a conversation, or an ability's run in a conversation (#32). */
export type Target =
  | {
      readonly prompt: string;
      /** The conversation's session key (`discord:thread:<id>`, `discord:dm:<user>`, `terminal`). */
      readonly conversation: string;
    }
  | {
      readonly ability: string;
      readonly inputs: Readonly<Record<string, unknown>>;
      /** The conversation the run belongs to (its end is posted there; alerts go there). */
      readonly conversation: string;
    };

/** Occurrences missed while no gateway ran: skip them all, run the newest once, or run each. */
export type MissedPolicy = "skip" | "once" | "all";

export const MISSED_POLICIES: readonly MissedPolicy[] = ["skip", "once", "all"];

/** How a schedule came to be. */
export type ScheduleOrigin = "config" | "cli" | "model";

/** What a schedule is, as created (validated by `validateSchedule`). */
export interface ScheduleDefinition {
  readonly id: string;
  readonly name: string;
  readonly when: When;
  readonly timeZone: string;
  readonly target: Target;
  readonly missed: MissedPolicy;
  /** Missed occurrences older than this (ms) are skipped whatever the policy. */
  readonly graceMs: number;
  /** Tool paths or globs its runs may call; undefined: no ceiling (config and CLI schedules may say so). */
  readonly ceiling?: readonly string[];
  /** Who created it (`discord:<id>`, `cli`, `config`); alerts after repeated failures go to them. */
  readonly createdBy: string;
  readonly origin: ScheduleOrigin;
  /** Epoch ms; intervals count from here and only occurrences after it fire. */
  readonly createdAt: number;
}

/** How a schedule's latest occurrence ended. */
export type OccurrenceStatus = "running" | "succeeded" | "failed" | "skipped";

/** A schedule with the state its occurrences left. */
export interface Schedule extends ScheduleDefinition {
  readonly paused: boolean;
  /** Set when removed (kept for its history). */
  readonly removedAt?: number;
  /** Every occurrence at or before this time (epoch ms) was handled (fired or skipped). */
  readonly checkedThrough: number;
  /** Failures in a row (a success resets it). */
  readonly failures: number;
  /** Occurrences before this time are skipped (backing off after failures). */
  readonly backoffUntil?: number;
  readonly lastOutcome?: OccurrenceStatus;
  readonly lastAt?: number;
}

/** One occurrence of a schedule: its time is its idempotency key (one row per schedule and time). */
export interface Occurrence {
  readonly scheduleId: string;
  /** The occurrence's time (epoch ms). */
  readonly at: number;
  readonly status: OccurrenceStatus;
  /** The run id its receipts carry (`schedule.fired/skipped/failed`). */
  readonly runId: string;
  /** The gateway that claimed it. */
  readonly claimedBy: string;
  readonly claimedAt: number;
  readonly finishedAt?: number;
  /** The turn it started, when it fired (an ability schedule: the ability run). */
  readonly turnId?: string;
  /** Why it was skipped or failed, or what the turn answered (cut). */
  readonly detail?: string;
}

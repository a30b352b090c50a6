import type { MissedPolicy } from "./types.ts";

/**
 * An occurrence found more than this after its time was missed (no gateway ran at its time); a
 * later one is on time (a tick runs every second; a busy gateway may be late by a few).
 */
export const MISSED_AFTER_MS = 60_000;

/** What to do with one due occurrence. */
export type Decision =
  | { readonly at: number; readonly fire: true; readonly why: string }
  | { readonly at: number; readonly fire: false; readonly by: string; readonly why: string };

const minutes = (ms: number) =>
  ms < 120_000
    ? `${Math.round(ms / 1000)} s`
    : ms < 7_200_000
      ? `${Math.round(ms / 60_000)} min`
      : `${(ms / 3_600_000).toFixed(1)} h`;

/**
 * The missed-run policy applied to the occurrences due now (oldest first): on-time ones fire;
 * missed ones past the grace window are skipped; within it, `skip` skips them, `once` fires the
 * newest when nothing fires on time (the others skipped), `all` fires each. During a backoff
 * (`backoffUntil`) an occurrence that would fire is skipped instead.
 */
export function decideDue(
  due: readonly number[],
  now: number,
  policy: {
    readonly missed: MissedPolicy;
    readonly graceMs: number;
    readonly backoffUntil?: number;
    readonly failures: number;
  },
): Decision[] {
  const onTime = due.filter((at) => now - at <= MISSED_AFTER_MS);
  const missed = due.filter((at) => now - at > MISSED_AFTER_MS);
  const inGrace = missed.filter((at) => now - at <= policy.graceMs);
  const catchUp = new Set(
    policy.missed === "all" ? inGrace : policy.missed === "once" && onTime.length === 0 ? inGrace.slice(-1) : [],
  );
  return due.map((at): Decision => {
    const late = now - at;
    let d: Decision;
    if (late <= MISSED_AFTER_MS) d = { at, fire: true, why: "on time" };
    else if (late > policy.graceMs)
      d = {
        at,
        fire: false,
        by: "schedule:grace window",
        why: `missed by ${minutes(late)} while no gateway ran, past the grace window of ${minutes(policy.graceMs)}`,
      };
    else if (catchUp.has(at))
      d = {
        at,
        fire: true,
        why: `caught up ${minutes(late)} late after downtime (missed-run policy ${policy.missed})`,
      };
    else
      d = {
        at,
        fire: false,
        by: "schedule:missed-run policy",
        why:
          policy.missed === "skip"
            ? `missed by ${minutes(late)} while no gateway ran (missed-run policy skip)`
            : `missed by ${minutes(late)} while no gateway ran; a newer occurrence runs instead (missed-run policy once)`,
      };
    if (d.fire && policy.backoffUntil !== undefined && at < policy.backoffUntil)
      return {
        at,
        fire: false,
        by: "schedule:backoff",
        why: `backing off after ${policy.failures} failure(s) in a row, until ${new Date(policy.backoffUntil).toISOString()}`,
      };
    return d;
  });
}

/** Waits after failures in a row (1st, 2nd, 3rd, 4th and later): occurrences before the wait ends are skipped. */
export const BACKOFF_STEPS_MS: readonly number[] = [60_000, 300_000, 900_000, 3_600_000];

/** After this many failures in a row the creator is alerted (once per streak). */
export const ALERT_AFTER_FAILURES = 3;

export function backoffAfter(failures: number): number {
  return BACKOFF_STEPS_MS[Math.min(failures, BACKOFF_STEPS_MS.length) - 1]!;
}

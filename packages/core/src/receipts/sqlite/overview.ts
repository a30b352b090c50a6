import type { Database } from "bun:sqlite";
import {
  type DecisionWait,
  deniedCall,
  foldOverview,
  type OutcomeGroup,
  OVERVIEW_LIMITS,
  type Overview,
  overviewWindow,
  type Period,
} from "../overview.ts";

/**
 * What the overview charts, from the receipts of one period: each call counts once, by its outcome
 * receipt (succeeded, failed, denied: a call has exactly one), in the bar of the time it ended.
 * Reads only that period's rows (`receipts_at`), in three bounded queries; `foldOverview` does the rest.
 */
export function overview(db: Database, period: Period, now: number): Overview {
  const w = overviewWindow(period, now);
  const groups = db
    .query(
      `SELECT tool_path AS tool, phase, (at - ?1) / ?3 AS bucket, COUNT(*) AS n,
         SUM(duration_ms) AS total, COUNT(duration_ms) AS timed, MAX(duration_ms) AS longest
       FROM receipts WHERE at >= ?1 AND at < ?2 AND phase IN ('succeeded', 'failed', 'denied')
       GROUP BY tool_path, phase, bucket`,
    )
    .all(w.from, w.to, w.bucketMs) as OutcomeGroup[];
  return foldOverview(w, groups, decisionWaits(db, w.from, w.to), deniedCalls(db, w.from, w.to));
}

/**
 * Time from a call's `requested` receipt to the decision on it, for calls decided in the period by
 * someone asked (not the policy, not a standing rule, which decide at once). A plugin hook's
 * receipts (`plugin:<id>`: its second `requested`, its denial) are not a person's wait.
 */
function decisionWaits(db: Database, from: number, to: number): DecisionWait[] {
  return db
    .query(
      `SELECT d.decided_by AS approver, d.at - q.at AS wait
       FROM receipts d JOIN receipts q ON q.run_id = d.run_id AND q.call_id = d.call_id AND q.phase = 'requested'
         AND q.decided_by IS NULL
       WHERE d.at >= ? AND d.at < ? AND d.phase IN ('approved', 'denied') AND d.policy = 'required'
         AND d.decided_by IS NOT NULL AND d.decided_by NOT IN ('policy', 'timeout', 'system')
         AND d.decided_by NOT LIKE 'rule:%' AND d.decided_by NOT LIKE 'plugin:%'
       ORDER BY d.seq DESC LIMIT ?`,
    )
    .all(from, to, OVERVIEW_LIMITS.decisions) as DecisionWait[];
}

/** The newest denials: `+at` keeps SQLite on the small `receipts_denied` index, newest first. */
function deniedCalls(db: Database, from: number, to: number) {
  const rows = db
    .query(
      `SELECT at, tool_path AS tool, decided_by AS by, reason, run_id AS runId, call_id AS callId
       FROM receipts WHERE phase = 'denied' AND +at >= ? AND +at < ? ORDER BY seq DESC LIMIT ?`,
    )
    .all(from, to, OVERVIEW_LIMITS.denied) as Array<Parameters<typeof deniedCall>[0]>;
  return rows.map(deniedCall);
}

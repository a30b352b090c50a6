import type { Database } from "bun:sqlite";
import {
  type ApproverWait,
  type DeniedCall,
  type Outcome,
  OVERVIEW_LIMITS,
  type Overview,
  PERIODS,
  type Period,
  percentile,
  type ToolStats,
} from "../overview.ts";

/**
 * What the overview charts, from the receipts of one period: each call counts once, by its outcome
 * receipt (succeeded, failed, denied: a call has exactly one), in the bar of the time it ended.
 * Reads only that period's rows (`receipts_at`), in three bounded queries.
 */
export function overview(db: Database, period: Period, now: number): Overview {
  const { ms, bucketMs } = PERIODS[period];
  // Bars line up with whole hours (days for 30d, UTC): the first starts at or before `now - ms`,
  // the last holds `now`, so there is always one bar more than the period has hours.
  const to = now;
  const from = Math.floor((now - ms) / bucketMs) * bucketMs;
  const count = ms / bucketMs + 1;
  const groups = db
    .query(
      `SELECT tool_path AS tool, phase, (at - ?1) / ?3 AS bucket, COUNT(*) AS n,
         SUM(duration_ms) AS total, COUNT(duration_ms) AS timed, MAX(duration_ms) AS longest
       FROM receipts WHERE at >= ?1 AND at < ?2 AND phase IN ('succeeded', 'failed', 'denied')
       GROUP BY tool_path, phase, bucket`,
    )
    .all(from, to, bucketMs) as Array<{
    tool: string;
    phase: Outcome;
    bucket: number;
    n: number;
    total: number | null;
    timed: number;
    longest: number | null;
  }>;
  const buckets = Array.from({ length: count }, (_, i) => ({
    start: from + i * bucketMs,
    succeeded: 0,
    failed: 0,
    denied: 0,
  }));
  const totals = { succeeded: 0, failed: 0, denied: 0 };
  const tools = new Map<
    string,
    { calls: number; failed: number; denied: number; total: number; timed: number; max?: number }
  >();
  for (const g of groups) {
    const b = buckets[Math.floor(g.bucket)];
    if (b) b[g.phase] += g.n;
    totals[g.phase] += g.n;
    const t = tools.get(g.tool) ?? { calls: 0, failed: 0, denied: 0, total: 0, timed: 0 };
    t.calls += g.n;
    if (g.phase === "failed") t.failed += g.n;
    if (g.phase === "denied") t.denied += g.n;
    t.total += g.total ?? 0;
    t.timed += g.timed;
    if (g.longest !== null) t.max = Math.max(t.max ?? 0, g.longest);
    tools.set(g.tool, t);
  }
  const stats: ToolStats[] = [...tools].map(([tool, t]) => ({
    tool,
    calls: t.calls,
    failed: t.failed,
    denied: t.denied,
    ...(t.timed ? { avgMs: t.total / t.timed, maxMs: t.max } : {}),
  }));
  const byName = (a: ToolStats, b: ToolStats) => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0);
  return {
    period,
    from,
    to,
    bucketMs,
    buckets,
    totals,
    waits: approvalWaits(db, from, to),
    slowest: stats
      .filter((s) => s.avgMs !== undefined)
      .sort((a, b) => b.avgMs! - a.avgMs! || byName(a, b))
      .slice(0, OVERVIEW_LIMITS.tools),
    failing: stats
      .filter((s) => s.failed > 0)
      .sort((a, b) => b.failed - a.failed || b.failed / b.calls - a.failed / a.calls || byName(a, b))
      .slice(0, OVERVIEW_LIMITS.tools),
    denied: deniedCalls(db, from, to),
  };
}

/**
 * Time from a call's `requested` receipt to the decision on it, per decider, for calls decided in
 * the period by someone asked (not the policy, not a standing rule, which decide at once). A
 * plugin hook's receipts (`plugin:<id>`: its second `requested`, its denial) are not a person's wait.
 */
function approvalWaits(db: Database, from: number, to: number): ApproverWait[] {
  const rows = db
    .query(
      `SELECT d.decided_by AS approver, d.at - q.at AS wait
       FROM receipts d JOIN receipts q ON q.run_id = d.run_id AND q.call_id = d.call_id AND q.phase = 'requested'
         AND q.decided_by IS NULL
       WHERE d.at >= ? AND d.at < ? AND d.phase IN ('approved', 'denied') AND d.policy = 'required'
         AND d.decided_by IS NOT NULL AND d.decided_by NOT IN ('policy', 'timeout', 'system')
         AND d.decided_by NOT LIKE 'rule:%' AND d.decided_by NOT LIKE 'plugin:%'
       ORDER BY d.seq DESC LIMIT ?`,
    )
    .all(from, to, OVERVIEW_LIMITS.decisions) as Array<{ approver: string; wait: number }>;
  const byApprover = new Map<string, number[]>();
  for (const r of rows) {
    const list = byApprover.get(r.approver) ?? [];
    list.push(Math.max(0, r.wait));
    byApprover.set(r.approver, list);
  }
  return [...byApprover]
    .map(([approver, waits]) => {
      waits.sort((a, b) => a - b);
      return { approver, decisions: waits.length, medianMs: percentile(waits, 0.5), p95Ms: percentile(waits, 0.95) };
    })
    .sort((a, b) => b.decisions - a.decisions || (a.approver < b.approver ? -1 : 1))
    .slice(0, OVERVIEW_LIMITS.approvers);
}

/** The newest denials: `+at` keeps SQLite on the small `receipts_denied` index, newest first. */
function deniedCalls(db: Database, from: number, to: number): DeniedCall[] {
  const rows = db
    .query(
      `SELECT at, tool_path AS tool, decided_by AS by, reason, run_id AS runId, call_id AS callId
       FROM receipts WHERE phase = 'denied' AND +at >= ? AND +at < ? ORDER BY seq DESC LIMIT ?`,
    )
    .all(from, to, OVERVIEW_LIMITS.denied) as Array<{
    at: number;
    tool: string;
    by: string | null;
    reason: string | null;
    runId: string;
    callId: string;
  }>;
  return rows.map((r) => ({
    at: r.at,
    tool: r.tool,
    runId: r.runId,
    callId: r.callId,
    ...(r.by !== null ? { by: r.by } : {}),
    ...(r.reason !== null ? { reason: r.reason } : {}),
  }));
}

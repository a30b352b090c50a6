import type { Postgres } from "../../db/postgres/connect.ts";
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

/** What the overview charts for one period (the SQLite twin and its rules: sqlite/overview.ts). */
export async function overview(sql: Postgres, period: Period, now: number): Promise<Overview> {
  const { ms, bucketMs } = PERIODS[period];
  const to = now;
  const from = Math.floor((now - ms) / bucketMs) * bucketMs;
  const count = ms / bucketMs + 1;
  const groups = await sql.unsafe(
    `SELECT tool_path AS tool, phase, ((at - $1::bigint) / $3::bigint)::int AS bucket, COUNT(*)::int AS n,
       SUM(duration_ms) AS total, COUNT(duration_ms)::int AS timed, MAX(duration_ms) AS longest
     FROM receipts WHERE at >= $1 AND at < $2 AND phase IN ('succeeded', 'failed', 'denied')
     GROUP BY tool_path, phase, bucket`,
    [from, to, bucketMs],
  );
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
  for (const g of groups as Array<{
    tool: string;
    phase: Outcome;
    bucket: number;
    n: number;
    total: number | null;
    timed: number;
    longest: number | null;
  }>) {
    const b = buckets[g.bucket];
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
    waits: await approvalWaits(sql, from, to),
    slowest: stats
      .filter((s) => s.avgMs !== undefined)
      .sort((a, b) => b.avgMs! - a.avgMs! || byName(a, b))
      .slice(0, OVERVIEW_LIMITS.tools),
    failing: stats
      .filter((s) => s.failed > 0)
      .sort((a, b) => b.failed - a.failed || b.failed / b.calls - a.failed / a.calls || byName(a, b))
      .slice(0, OVERVIEW_LIMITS.tools),
    denied: await deniedCalls(sql, from, to),
  };
}

async function approvalWaits(sql: Postgres, from: number, to: number): Promise<ApproverWait[]> {
  const rows = await sql.unsafe(
    `SELECT d.decided_by AS approver, (d.at - q.at)::float8 AS wait
     FROM receipts d JOIN receipts q ON q.run_id = d.run_id AND q.call_id = d.call_id AND q.phase = 'requested'
     WHERE d.at >= $1 AND d.at < $2 AND d.phase IN ('approved', 'denied') AND d.policy = 'required'
       AND d.decided_by IS NOT NULL AND d.decided_by NOT IN ('policy', 'timeout', 'system')
       AND d.decided_by NOT LIKE 'rule:%'
     ORDER BY d.seq DESC LIMIT $3`,
    [from, to, OVERVIEW_LIMITS.decisions],
  );
  const byApprover = new Map<string, number[]>();
  for (const r of rows as Array<{ approver: string; wait: number }>)
    byApprover.set(r.approver, [...(byApprover.get(r.approver) ?? []), Math.max(0, r.wait)]);
  return [...byApprover]
    .map(([approver, waits]) => {
      waits.sort((a, b) => a - b);
      return { approver, decisions: waits.length, medianMs: percentile(waits, 0.5), p95Ms: percentile(waits, 0.95) };
    })
    .sort((a, b) => b.decisions - a.decisions || (a.approver < b.approver ? -1 : 1))
    .slice(0, OVERVIEW_LIMITS.approvers);
}

async function deniedCalls(sql: Postgres, from: number, to: number): Promise<DeniedCall[]> {
  const rows = await sql.unsafe(
    `SELECT at::float8 AS at, tool_path AS tool, decided_by AS by, reason, run_id AS "runId", call_id AS "callId"
     FROM receipts WHERE phase = 'denied' AND at >= $1 AND at < $2 ORDER BY seq DESC LIMIT $3`,
    [from, to, OVERVIEW_LIMITS.denied],
  );
  return (
    rows as Array<{ at: number; tool: string; by: string | null; reason: string | null; runId: string; callId: string }>
  ).map((r) => ({
    at: r.at,
    tool: r.tool,
    runId: r.runId,
    callId: r.callId,
    ...(r.by !== null ? { by: r.by } : {}),
    ...(r.reason !== null ? { reason: r.reason } : {}),
  }));
}

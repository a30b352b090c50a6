// The console overview's periods and shapes; the SQL behind them is in a backend (receipts/sqlite/overview.ts).

const HOUR = 3_600_000;

/** Periods the overview offers (the URL's `period`): how far back, and the width of one bar. */
export const PERIODS = {
  "6h": { ms: 6 * HOUR, bucketMs: HOUR, label: "last 6 hours" },
  "24h": { ms: 24 * HOUR, bucketMs: HOUR, label: "last 24 hours" },
  "7d": { ms: 7 * 24 * HOUR, bucketMs: HOUR, label: "last 7 days" },
  "30d": { ms: 30 * 24 * HOUR, bucketMs: 24 * HOUR, label: "last 30 days" },
} as const;
export type Period = keyof typeof PERIODS;
export const DEFAULT_PERIOD: Period = "24h";
export const isPeriod = (p: string | null | undefined): p is Period => !!p && Object.hasOwn(PERIODS, p);

export type Outcome = "succeeded" | "failed" | "denied";
export const OUTCOMES: readonly Outcome[] = ["succeeded", "failed", "denied"];

export interface Bucket {
  readonly start: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly denied: number;
}

export interface ApproverWait {
  /** `decided_by` as recorded: `discord:<id>`, `console:<id>` (timeouts, the policy and rules decide unasked: not listed). */
  readonly approver: string;
  readonly decisions: number;
  readonly medianMs: number;
  readonly p95Ms: number;
}

export interface ToolStats {
  readonly tool: string;
  readonly calls: number;
  readonly failed: number;
  readonly denied: number;
  /** Mean and longest run time of the calls that ran (succeeded or failed with a duration). */
  readonly avgMs?: number;
  readonly maxMs?: number;
}

export interface DeniedCall {
  readonly at: number;
  readonly tool: string;
  readonly by?: string;
  readonly reason?: string;
  readonly runId: string;
  readonly callId: string;
}

export interface Overview {
  readonly period: Period;
  readonly from: number;
  readonly to: number;
  readonly bucketMs: number;
  readonly buckets: readonly Bucket[];
  readonly totals: Readonly<Record<Outcome, number>>;
  readonly waits: readonly ApproverWait[];
  readonly slowest: readonly ToolStats[];
  readonly failing: readonly ToolStats[];
  readonly denied: readonly DeniedCall[];
}

/** Rows each list of the overview shows; decisions read for the wait times (newest first). */
export const OVERVIEW_LIMITS = { tools: 8, approvers: 12, denied: 20, decisions: 50_000 } as const;

/** Nearest-rank percentile of sorted values (`q` in 0..1): a value that occurred, never an interpolation. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/**
 * The window of one period ending `now`: bars line up with whole hours (days for 30d, UTC); the
 * first starts at or before `now - ms`, the last holds `now`, so there is one bar more than the
 * period has hours.
 */
export function overviewWindow(period: Period, now: number) {
  const { ms, bucketMs } = PERIODS[period];
  const from = Math.floor((now - ms) / bucketMs) * bucketMs;
  return { period, from, to: now, bucketMs, count: ms / bucketMs + 1 };
}
export type OverviewWindow = ReturnType<typeof overviewWindow>;

/** One group of outcome receipts a backend counted: a tool, an outcome, a bar (index from `from`). */
export interface OutcomeGroup {
  readonly tool: string;
  readonly phase: Outcome;
  readonly bucket: number;
  readonly n: number;
  readonly total: number | null;
  readonly timed: number;
  readonly longest: number | null;
}

/** One decision by someone asked, and how long after the call's first `requested` receipt it came. */
export interface DecisionWait {
  readonly approver: string;
  readonly wait: number;
}

/**
 * The overview from what a backend read (the same for every backend; only the queries differ):
 * outcome groups, decision waits (newest first, at most `OVERVIEW_LIMITS.decisions`) and the newest
 * denials.
 */
export function foldOverview(
  w: OverviewWindow,
  groups: readonly OutcomeGroup[],
  decisions: readonly DecisionWait[],
  denied: readonly DeniedCall[],
): Overview {
  const buckets = Array.from({ length: w.count }, (_, i) => ({
    start: w.from + i * w.bucketMs,
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
    period: w.period,
    from: w.from,
    to: w.to,
    bucketMs: w.bucketMs,
    buckets,
    totals,
    waits: approverWaits(decisions),
    slowest: stats
      .filter((s) => s.avgMs !== undefined)
      .sort((a, b) => b.avgMs! - a.avgMs! || byName(a, b))
      .slice(0, OVERVIEW_LIMITS.tools),
    failing: stats
      .filter((s) => s.failed > 0)
      .sort((a, b) => b.failed - a.failed || b.failed / b.calls - a.failed / a.calls || byName(a, b))
      .slice(0, OVERVIEW_LIMITS.tools),
    denied: [...denied],
  };
}

/** Median and p95 wait per decider, the busiest first. */
function approverWaits(decisions: readonly DecisionWait[]): ApproverWait[] {
  const byApprover = new Map<string, number[]>();
  for (const r of decisions) {
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

/** A denial row as both backends read it (`by`, `reason` null when absent). */
export function deniedCall(r: {
  at: number;
  tool: string;
  by: string | null;
  reason: string | null;
  runId: string;
  callId: string;
}): DeniedCall {
  return {
    at: r.at,
    tool: r.tool,
    runId: r.runId,
    callId: r.callId,
    ...(r.by !== null ? { by: r.by } : {}),
    ...(r.reason !== null ? { reason: r.reason } : {}),
  };
}

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

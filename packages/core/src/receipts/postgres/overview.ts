import type { Postgres } from "../../db/postgres/connect.ts";
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

/** What the overview charts for one period (the same rules as sqlite/overview.ts; `foldOverview` does the rest). */
export async function overview(sql: Postgres, period: Period, now: number): Promise<Overview> {
  const w = overviewWindow(period, now);
  const groups = await sql.unsafe(
    `SELECT tool_path AS tool, phase, ((at - $1::bigint) / $3::bigint)::int AS bucket, COUNT(*)::int AS n,
       SUM(duration_ms) AS total, COUNT(duration_ms)::int AS timed, MAX(duration_ms) AS longest
     FROM receipts WHERE at >= $1 AND at < $2 AND phase IN ('succeeded', 'failed', 'denied')
     GROUP BY tool_path, phase, bucket`,
    [w.from, w.to, w.bucketMs],
  );
  const [waits, denied] = [await decisionWaits(sql, w.from, w.to), await deniedCalls(sql, w.from, w.to)];
  return foldOverview(w, groups as OutcomeGroup[], waits, denied);
}

/** Decisions by someone asked (not the policy, a standing rule or a plugin hook), as sqlite/overview.ts. */
async function decisionWaits(sql: Postgres, from: number, to: number): Promise<DecisionWait[]> {
  const rows = await sql.unsafe(
    `SELECT d.decided_by AS approver, (d.at - q.at)::float8 AS wait
     FROM receipts d JOIN receipts q ON q.run_id = d.run_id AND q.call_id = d.call_id AND q.phase = 'requested'
       AND q.decided_by IS NULL
     WHERE d.at >= $1 AND d.at < $2 AND d.phase IN ('approved', 'denied') AND d.policy = 'required'
       AND d.decided_by IS NOT NULL AND d.decided_by NOT IN ('policy', 'timeout', 'system')
       AND d.decided_by NOT LIKE 'rule:%' AND d.decided_by NOT LIKE 'plugin:%'
     ORDER BY d.seq DESC LIMIT $3`,
    [from, to, OVERVIEW_LIMITS.decisions],
  );
  return rows as DecisionWait[];
}

async function deniedCalls(sql: Postgres, from: number, to: number) {
  const rows = await sql.unsafe(
    `SELECT at::float8 AS at, tool_path AS tool, decided_by AS by, reason, run_id AS "runId", call_id AS "callId"
     FROM receipts WHERE phase = 'denied' AND at >= $1 AND at < $2 ORDER BY seq DESC LIMIT $3`,
    [from, to, OVERVIEW_LIMITS.denied],
  );
  return (rows as Array<Parameters<typeof deniedCall>[0]>).map(deniedCall);
}

import {
  OUTCOME_UNKNOWN,
  type Receipt,
  type ReceiptLog,
  type ReceiptReader,
  type RunJournal,
} from "@openassistant/core/receipts";

/** A call of a run with no outcome yet: waiting for a decision (`requested`/`approved`) or cut off running (`started`). */
export interface OpenCall {
  readonly callId: string;
  readonly toolPath: string;
  readonly phase: Receipt["phase"];
  /** When its latest receipt was written (epoch ms). */
  readonly since: number;
}

/** A run the receipts still show as pending: no process may be running it any more (a kill, a crash). */
export interface PendingRun {
  readonly runId: string;
  readonly sessionId?: string;
  readonly conversation?: string;
  readonly started: number;
  readonly calls: readonly OpenCall[];
  /** Whether the run journal holds its call order (a resume needs it). */
  readonly journaled: boolean;
  /** How many times it was resumed, by the journal. */
  readonly resumes: number;
}

/** Who a cancel is recorded as decided by, and the reason its receipts give. */
export const CANCELLED_BY = "operator (openassistant runs cancel)";
const CANCEL_REASON = "the run was cancelled by the operator (openassistant runs cancel)";

/** The runs whose receipts have a call without an outcome, the most recently active first. */
export async function pendingRuns(reader: ReceiptReader, journal: RunJournal): Promise<PendingRun[]> {
  const out: PendingRun[] = [];
  for (const row of await reader.runs({ status: "pending", limit: 1000 })) {
    const calls = openCalls(await reader.byRun(row.runId));
    if (calls.length === 0) continue;
    const journaled = await journal.read(row.runId);
    out.push({
      runId: row.runId,
      ...(row.sessionId ? { sessionId: row.sessionId } : {}),
      ...(row.conversation ? { conversation: row.conversation } : {}),
      started: row.started,
      calls,
      journaled: journaled !== undefined,
      resumes: journaled?.resumes ?? 0,
    });
  }
  return out;
}

/** Each call's latest receipt, kept when it has no outcome. */
export function openCalls(receipts: readonly Receipt[]): OpenCall[] {
  const latest = new Map<string, Receipt>();
  for (const r of receipts) {
    const cur = latest.get(r.callId);
    if (!cur || r.seq > cur.seq) latest.set(r.callId, r);
  }
  return [...latest.values()]
    .filter((r) => r.phase === "requested" || r.phase === "approved" || r.phase === "started")
    .map((r) => ({ callId: r.callId, toolPath: r.toolPath, phase: r.phase, since: r.at }));
}

/**
 * Closes a pending run's open calls with receipts (only appends): a call that waited for a
 * decision is `denied` by the operator; a call cut off while running is `failed` with an
 * `outcome unknown` error (the tool may have acted; the summary shows it as unverified). Returns the
 * calls it closed; none when the run has no open call (already finished, or unknown). `by` is who
 * decided it (the CLI's words by default; the console's `console:<operator>`).
 */
export async function cancelRun(
  log: ReceiptLog & ReceiptReader,
  runId: string,
  by: string = CANCELLED_BY,
): Promise<OpenCall[]> {
  const reason = by === CANCELLED_BY ? CANCEL_REASON : `the run was cancelled by ${by}`;
  const receipts = await log.byRun(runId);
  const open = openCalls(receipts);
  for (const call of open) {
    const last = receipts.filter((r) => r.callId === call.callId).at(-1)!;
    const common = {
      runId,
      callId: call.callId,
      toolPath: call.toolPath,
      approval: last.approval,
      policy: last.policy,
      ...(last.sessionId ? { sessionId: last.sessionId } : {}),
    };
    if (call.phase === "started")
      log.stage({ ...common, phase: "failed", error: `${OUTCOME_UNKNOWN}: ${reason} while it ran` });
    else
      log.stage({
        ...common,
        phase: "denied",
        decision: "denied",
        decidedBy: by,
        reason,
      });
  }
  await log.durable();
  return open;
}

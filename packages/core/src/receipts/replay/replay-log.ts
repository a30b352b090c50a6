import type { ClockRun, HostCallResult } from "../../sandbox/types.ts";
import type { ReceiptReader } from "../port.ts";
import type { PolicyMode, Receipt } from "../types.ts";
import type { ApprovalMode } from "@openassistant/sdk";
import type { RunJournal, RunStart } from "./port.ts";

/**
 * What the receipts say became of a recorded call:
 * - `answered`: it has an outcome receipt (succeeded, failed, denied); `result` is the answer it got.
 * - `cut-off`: its `started` receipt is durable, its outcome is not: the tool may or may not have acted.
 * - `not-started`: it never reached `started` (it waited for an approval, or the run stopped first).
 */
export type RecordedCallState = "answered" | "cut-off" | "not-started";

export interface RecordedCall {
  readonly position: number;
  readonly callId: string;
  readonly toolPath: string;
  readonly inputHash: string;
  readonly state: RecordedCallState;
  /** As its receipts recorded them (for the receipt that closes a call the resumed run will not answer). */
  readonly approval: ApprovalMode;
  readonly policy: PolicyMode;
  /** Present when `answered` and the journal holds the answer. */
  readonly result?: HostCallResult;
  readonly answeredAt?: number;
}

/** A run as it can be resumed: its nondeterminism inputs and its calls in order. */
export interface ReplayLog extends RunStart {
  readonly resumes: number;
  /** The clock values the snippet read, in order, to be given again. */
  readonly clock: readonly ClockRun[];
  readonly calls: readonly RecordedCall[];
}

const OUTCOMES = new Set(["succeeded", "failed", "denied"]);

/**
 * The replay log of a run: the journal's call order and answers, each call's state taken from its
 * receipts (the authority: a journal answer whose outcome receipt never became durable is not
 * trusted, the call counts as cut off). Undefined when the run has no journal (it ran before
 * journals, or never started).
 */
export async function readReplayLog(
  receipts: Pick<ReceiptReader, "byRun">,
  journal: Pick<RunJournal, "read">,
  runId: string,
): Promise<ReplayLog | undefined> {
  const [run, rows] = await Promise.all([journal.read(runId), receipts.byRun(runId)]);
  if (!run) return undefined;
  const phases = phasesByCall(rows);
  return {
    runId,
    seed: run.seed,
    ...(run.context ? { context: run.context } : {}),
    clock: run.clock,
    resumes: run.resumes,
    calls: run.calls.map((c) => {
      const seen = phases.get(c.callId);
      const state: RecordedCallState = seen?.outcome ? "answered" : seen?.started ? "cut-off" : "not-started";
      return {
        position: c.position,
        callId: c.callId,
        toolPath: c.toolPath,
        inputHash: c.inputHash,
        state,
        approval: seen?.approval ?? "required",
        policy: seen?.policy ?? "required",
        ...(state === "answered" && c.result ? { result: c.result } : {}),
        ...(state === "answered" && c.answeredAt !== undefined ? { answeredAt: c.answeredAt } : {}),
      };
    }),
  };
}

interface Seen {
  started: boolean;
  outcome: boolean;
  readonly approval: ApprovalMode;
  readonly policy: PolicyMode;
}

function phasesByCall(rows: readonly Receipt[]): Map<string, Seen> {
  const out = new Map<string, Seen>();
  for (const r of rows) {
    let seen = out.get(r.callId);
    if (!seen) out.set(r.callId, (seen = { started: false, outcome: false, approval: r.approval, policy: r.policy }));
    if (r.phase === "started") seen.started = true;
    if (OUTCOMES.has(r.phase)) seen.outcome = true;
  }
  return out;
}

import type { ReceiptLog, ReceiptReader, RunJournal } from "@openassistant/core/receipts";
import { cancelRun, openCalls, pendingRuns, type OpenCall, type PendingRun } from "./pending.ts";

/** A pending run as the console lists it: whether this gateway may cancel it, and why not. */
export interface ListedRun extends PendingRun {
  /** Absent when it may be cancelled; else why not (this gateway runs it, or started after it). */
  readonly notCancellable?: "resumed here" | "running here";
}

export type CancelOutcome =
  | { readonly outcome: "cancelled"; readonly closed: readonly OpenCall[] }
  | { readonly outcome: "running" }
  | { readonly outcome: "none" };

/** The console's `runs list --pending` / `runs cancel`, limited to the runs no process of this gateway runs. */
export interface RunControl {
  pending(): Promise<ListedRun[]>;
  /** Closes a run's open calls with receipts decided by `by`, unless this gateway may be running it. */
  cancel(runId: string, by: string): Promise<CancelOutcome>;
}

/**
 * Cancelling a run a live process runs would append closing receipts while its call still waits
 * (docs/durable-runs.md), so only the runs already pending when this gateway started, and that it
 * did not take to resume, may be cancelled: no run this process started or resumes is among them.
 */
export function createRunControl(o: {
  readonly receipts: ReceiptLog & ReceiptReader;
  readonly journal: RunJournal;
  /** The runs the receipts showed pending when this gateway started. */
  readonly leftAtStart: readonly string[];
  /** Of those, the ones this gateway resumes. */
  readonly resumed: readonly string[];
}): RunControl {
  const left = new Set(o.leftAtStart);
  const resumed = new Set(o.resumed);
  const why = (runId: string): ListedRun["notCancellable"] =>
    resumed.has(runId) ? "resumed here" : left.has(runId) ? undefined : "running here";
  return {
    async pending() {
      return (await pendingRuns(o.receipts, o.journal)).map((run) => {
        const notCancellable = why(run.runId);
        return notCancellable ? { ...run, notCancellable } : run;
      });
    },
    async cancel(runId, by) {
      if (why(runId))
        return openCalls(await o.receipts.byRun(runId)).length ? { outcome: "running" } : { outcome: "none" };
      const closed = await cancelRun(o.receipts, runId, by);
      return closed.length ? { outcome: "cancelled", closed } : { outcome: "none" };
    },
  };
}

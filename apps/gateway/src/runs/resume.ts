import type { CodeModeRunner } from "@openassistant/core/codemode";
import {
  readReplayLog,
  type ReceiptReader,
  type ReplayLog,
  type RunContext,
  type RunJournal,
} from "@openassistant/core/receipts";
import type { ToolTree } from "@openassistant/sdk";
import { pendingRuns, type PendingRun } from "./pending.ts";

type RunResult = Awaited<ReturnType<CodeModeRunner["runPromise"]>>;

/** A run a previous process left pending whose journal can run it again (its snippet is kept). */
export interface Resumable {
  readonly run: PendingRun;
  readonly log: ReplayLog;
  readonly context: RunContext;
}

/**
 * The pending runs a start resumes: journaled, with their snippet. A pending run without them (it ran
 * before journals) is left to `closeOrphanedApprovals` and `openassistant runs cancel`.
 */
export async function findResumable(
  reader: ReceiptReader,
  journal: RunJournal,
  pending?: readonly PendingRun[],
): Promise<Resumable[]> {
  const out: Resumable[] = [];
  for (const run of pending ?? (await pendingRuns(reader, journal))) {
    if (!run.journaled) continue;
    const log = await readReplayLog(reader, journal, run.runId);
    if (log?.context) out.push({ run, log, context: log.context });
  }
  return out;
}

/** The approvals the resumed runs will ask again under the same call id: kept open, their cards live. */
export function approvalsToKeep(runs: readonly Resumable[]): string[] {
  return runs.flatMap((r) => r.run.calls.filter((c) => c.phase !== "started").map((c) => c.callId));
}

export interface ResumeDeps {
  readonly runner: Pick<CodeModeRunner, "runPromise">;
  readonly tools: () => ToolTree;
  /** Gives the run's result back to the model in the run's session; resolves when that turn is stored. */
  readonly continueTurn: (resumed: Resumable, result: RunResult) => Promise<void>;
  readonly signal: AbortSignal;
  readonly log: (line: string) => void;
}

/** What became of one resumed run. */
export interface ResumeReport {
  readonly runId: string;
  readonly ok: boolean;
  readonly error?: string;
}

/**
 * Resumes each run by replay (the runner answers recorded calls from the journal, asks again the
 * approvals that were waiting, and never runs a cut-off call of a tool that is not idempotent), then
 * continues its conversation with the result. Runs resume concurrently: one waiting for a person
 * does not hold the others.
 */
export function resumeRuns(runs: readonly Resumable[], deps: ResumeDeps): Promise<ResumeReport[]> {
  return Promise.all(
    runs.map(async (r): Promise<ResumeReport> => {
      const { runId } = r.run;
      deps.log(`resuming run ${runId} (interrupted by a restart; ${r.run.calls.length} call(s) without an outcome)`);
      try {
        const result = await deps.runner.runPromise(r.context.code, {
          resume: r.log,
          tools: deps.tools(),
          signal: deps.signal,
          ...(r.context.sessionId ? { sessionId: r.context.sessionId } : {}),
          ...(r.context.requestedBy ? { requestedBy: r.context.requestedBy } : {}),
        });
        await deps.continueTurn(r, result);
        return result.ok ? { runId, ok: true } : { runId, ok: false, error: result.error?.message };
      } catch (e) {
        const error = e instanceof Error ? e.message : String(e);
        deps.log(`resuming run ${runId} failed: ${error}`);
        return { runId, ok: false, error };
      }
    }),
  );
}

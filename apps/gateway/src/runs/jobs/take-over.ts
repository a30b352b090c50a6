import { type CodeModeRunner, newRunId } from "@openassistant/core/codemode";
import { readReplayLog, type ReceiptReader, type RunJournal } from "@openassistant/core/receipts";
import { openCalls } from "../pending.ts";
import type { Resumable } from "../resume.ts";
import type { RunJobs } from "./run-jobs.ts";

/**
 * The runner as conversations use it on a shared database: each new run is watched (aborted if
 * this gateway loses its job's claim) and its job completed when it ends. A resume passes through:
 * its job is the taken-over one (`run-jobs.ts`).
 */
export function claimingRuns(runner: CodeModeRunner, jobs: RunJobs): CodeModeRunner {
  return {
    ...runner,
    runPromise: async (code, opts = {}) => {
      if (opts.resume) return runner.runPromise(code, opts);
      const runId = opts.runId ?? newRunId();
      const lost = jobs.watch(runId);
      try {
        return await runner.runPromise(code, {
          ...opts,
          runId,
          signal: opts.signal ? AbortSignal.any([opts.signal, lost]) : lost,
        });
      } finally {
        jobs.finished(runId);
      }
    },
  };
}

/**
 * A run whose job this gateway claimed from a dead gateway, as `resumeRuns` takes it: undefined
 * when nothing is left to resume (every call has an outcome: it ended before its job was
 * completed) or when its journal has no snippet to run again (left to `runs cancel`).
 */
export async function takenOverRun(
  reader: ReceiptReader,
  journal: RunJournal,
  runId: string,
): Promise<Resumable | undefined> {
  const receipts = await reader.byRun(runId);
  const calls = openCalls(receipts);
  if (calls.length === 0) return undefined;
  const log = await readReplayLog(reader, journal, runId);
  if (!log?.context) return undefined;
  const first = receipts[0]!;
  return {
    run: {
      runId,
      ...(first.sessionId ? { sessionId: first.sessionId } : {}),
      started: first.at,
      calls,
      journaled: true,
      resumes: log.resumes,
    },
    log,
    context: log.context,
  };
}

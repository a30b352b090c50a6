import type { ToolDefinition } from "@openassistant/sdk";
import type { RunJournal } from "../receipts/replay/port.ts";
import type { RecordedCall, ReplayLog } from "../receipts/replay/replay-log.ts";
import type { ReceiptStaging } from "../receipts/port.ts";
import { OUTCOME_UNKNOWN } from "../receipts/replay/port.ts";
import type { ClockRun, HostCallResult } from "../sandbox/types.ts";

/**
 * What the run's journal decides for the call the sandbox just made, by its position in the run:
 * - `answer`: the record has it, answered: its recorded answer crosses back, nothing executes.
 * - `stop`: the run stopped (the call differs from the record, or an earlier one did): it fails.
 * - `unknown`: the record has it cut off mid-flight and its tool is not idempotent: it is not run again.
 * - `run`: the call executes (past the record, or re-executed); `supersedes` is the recorded call
 *   it replaces (a cut-off idempotent call, or one that never started).
 */
export type Admission =
  | { readonly kind: "answer"; readonly result: HostCallResult }
  | { readonly kind: "stop"; readonly message: string }
  | { readonly kind: "unknown"; readonly recorded: RecordedCall }
  | { readonly kind: "run"; readonly position: number; readonly supersedes?: RecordedCall };

/**
 * One run's call order, written to its journal as calls cross, and, for a resumed run, the record
 * it replays. The first call that differs from the record stops the run (`stop` is the runner's:
 * it aborts the sandbox), and every later call is refused: nothing further executes.
 */
export class RunReplay {
  private position = 0;
  private clockReads = 0;
  private stopped: string | undefined;
  /** Journal writes not yet flushed, in order; `flush` commits them together. */
  private pending: Array<() => void> = [];

  constructor(
    readonly journal: RunJournal,
    readonly runId: string,
    private readonly record: ReplayLog | undefined,
    private readonly stop: (message: string) => void,
    private readonly redact: (text: string) => string,
  ) {}

  /** Clock values the snippet read since its previous call, journaled before that call is admitted. */
  readonly clockRead = (values: readonly ClockRun[]): void => {
    const from = this.clockReads;
    for (const [, count] of values) this.clockReads += count;
    this.write(() => this.journal.clock(this.runId, from, values));
  };

  /**
   * Commits the journal writes made so far, as one batch. The runner calls it right before every
   * receipts commit point (`durable()`) and at the run's end, so the journal is never behind a
   * durable receipt that announces an effect. (No timer: re-arming one cost ~9 µs a call. An
   * outcome receipt the store's own timer commits before the next flush may lack its answer; the
   * call then counts as cut off on resume, see `admit`.)
   */
  readonly flush = (): void | Promise<void> => {
    if (this.pending.length === 0) return;
    const writes = this.pending;
    this.pending = [];
    // Kept for the next commit point, which fails (and its tool does not run) while they cannot be written.
    const keep = (e: unknown) => {
      this.pending = [...writes, ...this.pending];
      throw e;
    };
    try {
      return this.journal
        .batch(() => {
          for (const w of writes) w();
        })
        ?.catch(keep);
    } catch (e) {
      keep(e);
    }
  };

  /** Queues a journal write for the next `flush`. */
  write(work: () => void): void {
    this.pending.push(work);
  }

  /** Why the run stopped, once a call diverged from the record. */
  stoppedBecause(): string | undefined {
    return this.stopped;
  }

  admit(path: string, inputJson: string, definition: ToolDefinition | undefined): Admission {
    if (this.stopped) return { kind: "stop", message: this.stopped };
    const position = this.position++;
    const recorded = this.record?.calls[position];
    if (!recorded) return { kind: "run", position };
    const hash = inputHash(inputJson);
    if (recorded.toolPath !== path || recorded.inputHash !== hash) return this.diverged(recorded, path, hash);
    if (recorded.state === "not-started") return { kind: "run", position, supersedes: recorded };
    // Cut off, or answered but its answer was not journaled before the crash: only a tool that may
    // run twice runs again.
    if (recorded.state === "cut-off" || !recorded.result)
      return mayRunAgain(definition) ? { kind: "run", position, supersedes: recorded } : { kind: "unknown", recorded };
    return { kind: "answer", result: recorded.result };
  }

  /** A call that executes takes its place in the journal (a re-executed one replaces the cut-off entry). */
  entered(position: number, callId: string, path: string, inputJson: string): void {
    const hash = inputHash(inputJson);
    this.write(() => this.journal.call({ runId: this.runId, position, callId, toolPath: path, inputHash: hash }));
  }

  /** Secrets are scrubbed from the answer kept (an error's message already is). */
  answered(position: number, result: HostCallResult): void {
    const kept =
      result.ok && result.json !== undefined ? { ok: true as const, json: this.redact(result.json) } : result;
    const at = Date.now();
    this.write(() => this.journal.answer(this.runId, position, kept, at));
  }

  private diverged(recorded: RecordedCall, path: string, hash: string): Admission {
    const message =
      `the resumed run diverged from its record at call #${recorded.position + 1}: recorded ` +
      `${recorded.toolPath} (input sha-256 ${recorded.inputHash.slice(0, 12)}), now ${path} (input sha-256 ` +
      `${hash.slice(0, 12)}); the run stopped and nothing further was executed`;
    this.stopped = message;
    this.stop(message);
    return { kind: "stop", message };
  }
}

/** Running it a second time has no further effect: it is idempotent, or it changes nothing at all. */
function mayRunAgain(definition: ToolDefinition | undefined): boolean {
  return definition?.idempotent === true || definition?.readOnly === true;
}

/** sha-256 hex of a call's input JSON, exactly as it crossed from the sandbox. */
export function inputHash(inputJson: string): string {
  return new Bun.CryptoHasher("sha256").update(inputJson).digest("hex");
}

/** Why a recorded call the resumed run does not answer from its record is closed, for its last receipt. */
export function closingError(recorded: RecordedCall, rerunAs: string | undefined): string {
  if (recorded.state === "not-started")
    return `the run stopped before ${recorded.toolPath} started; the resumed run asked again as ${rerunAs}`;
  const cutOff =
    recorded.state === "answered"
      ? `${OUTCOME_UNKNOWN}: ${recorded.toolPath} has an outcome receipt but its answer was not recorded`
      : `${OUTCOME_UNKNOWN}: the gateway stopped while ${recorded.toolPath} ran and its result was not recorded`;
  if (rerunAs)
    return `${cutOff}; the tool may run twice (idempotent or read-only), so the resumed run ran it again as ${rerunAs}`;
  return `${cutOff}; it was not run again (the tool is not idempotent): check whether it took effect`;
}

/** The `failed` receipt that closes a recorded call the resumed run answers otherwise (its latest phase was not an outcome). */
export function closeRecorded(
  receipts: ReceiptStaging,
  runId: string,
  sessionId: string | undefined,
  recorded: RecordedCall,
  error: string,
): void {
  if (recorded.state === "answered") return;
  receipts.stage(
    {
      runId,
      callId: recorded.callId,
      toolPath: recorded.toolPath,
      approval: recorded.approval,
      policy: recorded.policy,
      sessionId,
      phase: "failed",
      error,
    },
    { defer: true },
  );
}

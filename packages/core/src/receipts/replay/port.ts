import type { ClockRun, HostCallResult } from "../../sandbox/types.ts";

/**
 * What a resumed run needs that the receipts do not hold: each call's position in its run and the
 * hash of its exact input, the whole answer it got (receipts keep a cut preview), and the values
 * the sandbox's nondeterminism took (the `Math.random` seed, the clock). The receipts stay the
 * authority on what happened to a call (`readReplayLog` joins the two); this journal only lets the
 * answer be given again. Backends: a file per run (`replay/file-journal.ts`), SQLite
 * (`sqlite/run-journal.ts`), PostgreSQL (`postgres/run-journal.ts`). The runner groups a run's
 * writes into one `batch` right before each receipts commit point, and waits for that batch before
 * the commit, so a call's entry is stored before the commit that precedes its tool's effect.
 */
export interface RunJournal {
  /**
   * Runs the writes `work` makes as one transaction (one commit). The local backends write before
   * returning; a backend on a server (PostgreSQL) returns the commit's promise (rejected when the
   * database refused it), and commits batches in the order they were made.
   */
  batch(work: () => void): void | Promise<void>;
  /** The run's nondeterminism inputs, written once when it starts (a resumed run keeps the first). */
  begin(run: RunStart): void;
  /** A call crossed from the sandbox: its place in the run's call order. */
  call(entry: JournalCall): void;
  /** The answer a call got (already redacted), and when, as the sandbox saw it. */
  answer(runId: string, position: number, result: HostCallResult, at: number): void;
  /** Clock values the snippet read (`Date.now`, `new Date()`), the first at index `from` (an index already kept is not rewritten). */
  clock(runId: string, from: number, values: readonly ClockRun[]): void;
  /** A resumed run is recorded as such (its count of resumes grows). */
  resumed(runId: string): void;
  read(runId: string): Promise<JournalRun | undefined>;
}

export interface RunStart {
  readonly runId: string;
  /** The four 32-bit words `Math.random` in the sandbox is seeded with. */
  readonly seed: readonly number[];
  /** What a resume at start needs to run it again (kept by the file backend; the SQLite one keeps the seed only). */
  readonly context?: RunContext;
}

/** The run as it was asked for: its snippet (redacted), the session it served and who asked. */
export interface RunContext {
  readonly code: string;
  readonly sessionId?: string;
  readonly requestedBy?: string;
  /** #35: the model that wrote the code (`provider:name`), so a resumed run's receipts name it too. */
  readonly model?: string;
}

export interface JournalCall {
  readonly runId: string;
  /** 0-based, in the order the snippet made its calls. */
  readonly position: number;
  readonly callId: string;
  readonly toolPath: string;
  /** sha-256 hex of the input JSON exactly as it crossed. */
  readonly inputHash: string;
}

export interface JournalEntry extends JournalCall {
  readonly result?: HostCallResult;
  /** When the answer was recorded (epoch ms). */
  readonly answeredAt?: number;
}

export interface JournalRun extends RunStart {
  readonly resumes: number;
  /** Every clock value the snippet read before its last call, in order. */
  readonly clock: readonly ClockRun[];
  /** By position. */
  readonly calls: readonly JournalEntry[];
}

/**
 * How the error of a receipt that closes a cut-off call begins: the tool may or may not have acted.
 * The activity summary shows such a call as unverified; grounding never counts it as done.
 */
export const OUTCOME_UNKNOWN = "outcome unknown";

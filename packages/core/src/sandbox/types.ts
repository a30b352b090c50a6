/** Limits for one sandboxed run. CPU counts only time spent inside the VM. */
export interface SandboxLimits {
  /**
   * CPU time of the thread running QuickJS, summed over the run (approval waits excluded). Linux
   * counts a thread's CPU time in scheduler ticks (steps of 1–4 ms on the machine in
   * BENCHMARKS.md), so the budget holds to within a few ms.
   */
  readonly cpuMs: number;
  /** Wall-clock bound for the whole run, approval waits included. */
  readonly wallMs: number;
  /** Size of the run's own WebAssembly.Memory; allocation beyond fails the run. */
  readonly memoryBytes: number;
  /** Max bytes of the JSON-serialized return value. */
  readonly maxOutputBytes: number;
  /** Max bytes of captured console output (the rest is dropped with a marker). */
  readonly maxLogBytes: number;
  /** Max tool calls in one run. */
  readonly maxToolCalls: number;
  /** Max length (characters of JSON) of one tool call's input; a larger input is a ToolInputError in the VM. */
  readonly maxInputChars: number;
}

export const defaultSandboxLimits: SandboxLimits = {
  cpuMs: 5_000,
  wallMs: 15 * 60_000,
  memoryBytes: 64 * 1024 * 1024,
  maxOutputBytes: 256 * 1024,
  maxLogBytes: 64 * 1024,
  maxToolCalls: 500,
  maxInputChars: 1_000_000,
};

/** A host error as it crosses into the sandbox: only these fields, scrubbed. */
export interface CrossingError {
  /** Becomes the error class inside the sandbox: ToolDeniedError, ToolInputError, ToolError, ... */
  readonly name: string;
  readonly message: string;
  readonly code?: string;
}

export type HostCallResult =
  | { readonly ok: true; readonly json: string | undefined }
  | { readonly ok: false; readonly error: CrossingError };

export interface SandboxRunOptions {
  /** Plain JavaScript: the body of an async function (top-level `await` and `return` allowed). */
  readonly code: string;
  /** Dotted tool paths; the sandbox builds a frozen `tools` object of this shape. */
  readonly toolPaths: readonly string[];
  /** Called for each `tools.a.b(input)`; input arrives as JSON text. Calls may overlap. */
  readonly onToolCall: (path: string, inputJson: string) => Promise<HostCallResult>;
  readonly limits?: Partial<SandboxLimits>;
  /** Aborting kills the run (its child is replaced). */
  readonly signal?: AbortSignal;
  /**
   * Four 32-bit words seeding the run's `Math.random`: the same seed gives the same sequence (a
   * resumed run replays its recorded one). Absent: drawn at random for the run.
   */
  readonly seed?: readonly number[];
  /** Clock values (`Date.now`, `new Date()`) to give the snippet again, in order; then the real clock. */
  readonly clock?: readonly ClockRun[];
  /** The clock values the snippet read since its previous call, handed over before the next call is. */
  readonly onClockReads?: (values: readonly ClockRun[]) => void;
}

/** A clock value the snippet read `count` times in a row. */
export type ClockRun = readonly [value: number, count: number];

export interface LogLine {
  readonly level: "log" | "info" | "warn" | "error" | "debug";
  readonly text: string;
}

export type SandboxErrorName =
  | "ScriptError" // the code threw (includes uncaught tool errors)
  | "CpuLimitError"
  | "WallClockError"
  | "MemoryLimitError"
  | "StackOverflowError"
  | "DeadlockError" // awaiting something that can never settle
  | "OutputLimitError"
  | "ToolCallLimitError"
  | "AbortedError"
  | "SandboxCrashError"; // the child died or stopped answering

export interface SandboxStats {
  /** As counted for the budget (`SandboxLimits.cpuMs`): in steps of a few ms, so 0 for a short run. */
  readonly cpuMs: number;
  readonly wallMs: number;
  readonly toolCalls: number;
}

export type SandboxResult =
  | {
      readonly ok: true;
      readonly valueJson: string | undefined;
      readonly logs: LogLine[];
      readonly stats: SandboxStats;
    }
  | {
      readonly ok: false;
      readonly error: { readonly name: SandboxErrorName; readonly message: string };
      readonly logs: LogLine[];
      readonly stats: SandboxStats;
    };

export interface SandboxPool {
  run(options: SandboxRunOptions): Promise<SandboxResult>;
  /**
   * Spawns the minimum number of children now (instead of on first run) and resolves once they
   * are ready, or once `ready` of them are (the rest keep starting in the background).
   */
  warmUp(options?: { readonly ready?: number }): Promise<void>;
  close(): Promise<void>;
}

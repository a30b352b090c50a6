import type { LogLine, SandboxErrorName, SandboxStats } from "../sandbox/types.ts";
import type { Decision, PolicyMode } from "../receipts/types.ts";

/** What happened to one `tools.x.y(...)` call, as the runner saw it. */
/** A running call's progress report, as a surface shows it (the message redacted, cut, its invisible characters shown). */
export interface CallProgress {
  readonly callId: string;
  readonly toolPath: string;
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

export interface CallOutcome {
  readonly callId: string;
  readonly toolPath: string;
  readonly status: "succeeded" | "failed" | "denied";
  readonly policy: PolicyMode;
  readonly decision?: Decision;
  readonly decidedBy?: string;
  readonly reason?: string;
  readonly error?: string;
  readonly durationMs: number;
}

export interface RunResult {
  readonly runId: string;
  readonly ok: boolean;
  /** JSON of the snippet's return value (undefined when it returned nothing). */
  readonly valueJson: string | undefined;
  readonly logs: readonly LogLine[];
  readonly error?: { readonly name: SandboxErrorName; readonly message: string };
  /** In call order. */
  readonly calls: readonly CallOutcome[];
  readonly stats: SandboxStats;
}

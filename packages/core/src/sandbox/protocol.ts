/**
 * Messages between the pool (parent) and a sandbox child over Bun IPC (JSON serialization).
 * Only strings and numbers cross; tool inputs and outputs stay JSON text end to end.
 */
import type { ClockRun, CrossingError, LogLine, SandboxErrorName, SandboxLimits } from "./types.ts";

/** One tool call the VM made: [callId, dotted path, input JSON, clock values read since the previous call ("t,t*n,…")]. */
export type WireCall = [id: number, path: string, inputJson: string, clock?: string];

/** One answer: [callId, json] on success, [callId, null, error] on failure (json undefined → no 2nd slot). */
export type WireResult = [id: number, json?: string | null, error?: CrossingError];

export type ParentMessage =
  | {
      readonly t: "run";
      readonly seq: number;
      readonly code: string;
      /** Absent: the same tool paths as this child's previous run (they rarely change). */
      readonly toolPaths?: readonly string[];
      readonly limits: SandboxLimits;
      /** Four 32-bit words seeding `Math.random`; absent: the child draws them. */
      readonly seed?: readonly number[];
      /** Clock values to give the snippet again, in order (a resumed run). */
      readonly clock?: readonly ClockRun[];
    }
  | { readonly t: "res"; readonly seq: number; readonly r: WireResult[] };

/** The outcome a child reports; the parent adds wall time and the tool-call count. */
export type ChildOutcome =
  | { readonly ok: true; readonly valueJson?: string }
  | { readonly ok: false; readonly error: { readonly name: SandboxErrorName; readonly message: string } };

export type ChildMessage =
  /**
   * The child can take the next run without delay: `n` fresh QuickJS instances are prepared.
   * Sent when it becomes free and again each time it prepares another instance while free.
   */
  | { readonly t: "ready"; readonly n: number }
  /** The VM is idle, waiting for answers. `ack` is the last parent seq it processed. */
  | { readonly t: "wait"; readonly ack: number; readonly c?: WireCall[]; readonly l?: LogLine[] }
  | { readonly t: "done"; readonly outcome: ChildOutcome; readonly cpuMs: number; readonly l?: LogLine[] };

import type { TypecheckResult } from "./typecheck-diagnostics.ts";

/** Gateway → checker child. `declarations` is sent only when the child does not hold `key` yet. */
export type CheckerRequest =
  | {
      readonly type: "check";
      readonly id: number;
      readonly code: string;
      readonly key: string;
      readonly declarations?: string;
    }
  /**
   * Build a warm checker for these declarations now, before a check needs it (no reply).
   * `declarations` as for a check: absent when the child was sent them before.
   */
  | { readonly type: "prime"; readonly key: string; readonly declarations?: string };

/** Checker child → gateway. */
export type CheckerReply =
  | { readonly type: "ready" }
  /**
   * `cpuMs`: the checker's CPU time for this check (user + system), for benchmarks. `cold`: the
   * check had to build its checker first (new declarations, or none was ready). `practised`: JIT
   * warm-up checks the child has made so far.
   */
  | {
      readonly type: "result";
      readonly id: number;
      readonly result: TypecheckResult;
      readonly cpuMs: number;
      readonly cold: boolean;
      readonly practised: number;
    }
  /** The child evicted (or never had) the declarations named by `key`: send them with the request. */
  | { readonly type: "need-declarations"; readonly id: number };

import type { ApprovalMode } from "@openassistant/sdk";

/** One row per phase of a tool call (seed 001 §4). */
export type ReceiptPhase = "requested" | "approved" | "denied" | "started" | "succeeded" | "failed";

/** Effective policy for a call after operator rules: the tool's mode, overridden, or deny. */
export type PolicyMode = "auto" | "required" | "deny";

export type Decision = "auto" | "approved" | "denied";

/** What the runner hands to the store; the store adds id, seq, time and the hash chain. */
export interface ReceiptDraft {
  readonly runId: string;
  readonly callId: string;
  readonly toolPath: string;
  readonly phase: ReceiptPhase;
  /** The tool author's approval mode. */
  readonly approval: ApprovalMode;
  /** The effective mode after policy rules. */
  readonly policy: PolicyMode;
  readonly decision?: Decision;
  /** Who decided: an operator id, `rule:<id>`, `policy`, `timeout`, `system`. */
  readonly decidedBy?: string;
  /** Deny reason or failure reason, as given to the model. */
  readonly reason?: string;
  readonly sessionId?: string;
  readonly inputPreview?: string;
  readonly outputPreview?: string;
  readonly error?: string;
  readonly durationMs?: number;
  /** #35: the model that wrote the run's code, `provider:name` (e.g. `openai-compatible:llama3.1:8b`); absent for runs no model wrote and for receipts written before. */
  readonly model?: string;
}

export interface Receipt extends ReceiptDraft {
  /** Stable reference, e.g. `r_000123`. */
  readonly id: string;
  /** Global append order. */
  readonly seq: number;
  /** Unix epoch milliseconds. */
  readonly at: number;
  /**
   * Keyed chain: the mac of the previous receipt in the whole database (or the chain's genesis mac).
   * Legacy rows: the hash of the previous receipt of the same run, null for the first.
   */
  readonly prevHash: string | null;
  /** HMAC-SHA256 of the receipt and `prevHash` (legacy rows: unkeyed SHA-256). */
  readonly hash: string;
  /** Written before the keyed chain (unkeyed SHA-256 chained per run); verified under that scheme. */
  readonly legacy?: true;
}

export type VerifyResult =
  | { readonly ok: true; readonly legacy: number; readonly keyed: number; readonly head: "checked" | "none" }
  | { readonly ok: false; readonly brokenAt: string; readonly reason: string };

export interface ReceiptQuery {
  readonly runId?: string;
  readonly callId?: string;
  readonly sessionId?: string;
  /** Glob on the tool path: `calendar.*`, `*.delete`, exact path. */
  readonly tool?: string;
  readonly phase?: ReceiptPhase;
  readonly since?: number;
  readonly until?: number;
  readonly limit?: number;
}

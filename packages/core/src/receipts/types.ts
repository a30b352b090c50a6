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

export interface ReceiptStore {
  /** Appends and commits (with anything staged before it) before returning; never updates or deletes. */
  append(draft: ReceiptDraft): Receipt;
  /**
   * Queues a receipt for the next group commit (validated and bounded now). Await `durable()`
   * before any step whose effect leaves the gateway. With `defer`, the receipt does not start a
   * commit of its own: it joins the next one (a `durable()`, a read, another stage) and is
   * committed at the latest after a few milliseconds (a tool's outcome: the next call's
   * `durable()` or the run's end carries it).
   */
  stage(draft: ReceiptDraft, options?: { readonly defer?: boolean }): void;
  /** Resolves once every receipt staged so far is committed; rejects if that commit failed. */
  durable(): Promise<void>;
  /**
   * Gets every receipt staged or made durable so far into the database now (what the reads below
   * do first). For code that reads the receipts table with its own SQL (the console's run list).
   */
  sync(): void;
  /**
   * Resolves once every receipt staged so far is in the database without blocking the event loop
   * while it waits (the fold worker commits them; without one this commits here). A `byRun` of a
   * run that staged nothing since then reads at once, without waiting for other runs' receipts.
   */
  settled(): Promise<void>;
  /** A run's receipts in order; first commits what is staged, unless this run's are already in (see `settled`). */
  byRun(runId: string): Receipt[];
  query(q: ReceiptQuery): Receipt[];
  /** Checks a run's receipts: the keyed chain from its first receipt through the one after its last, and the head. */
  verifyRun(runId: string): { ok: true } | { ok: false; brokenAt: string; reason: string };
  /** Checks every receipt in the database and the chain head; names the first bad row. */
  verify(): VerifyResult;
  /** Where the chain's key and head live, for messages. */
  info(): { dbId: string; keyId: string; keyPath?: string; headPath?: string; recordedKeyId?: string };
  /** Commits what is staged; releases statements and the head file. */
  close(): void;
}

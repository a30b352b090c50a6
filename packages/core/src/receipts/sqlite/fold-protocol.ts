import type { MessagePort } from "node:worker_threads";
import type { ReceiptKey } from "../key.ts";
import type { Receipt } from "../types.ts";

/** What the store hands the fold worker (fold-worker.ts) when it starts it. */
export interface FoldWorkerData {
  readonly path: string;
  readonly key: ReceiptKey;
  readonly dbId: string;
  readonly headFile?: string;
  /** Int32 slots the worker updates (below), so the store can wait on them with Atomics.wait. */
  readonly ctl: SharedArrayBuffer;
  /** Answers to `fold` and `close`, read synchronously with receiveMessageOnPort. */
  readonly reply: MessagePort;
}

/** Records committed so far (the worker's running count). */
export const CTL_FOLDED = 0;
/** The id of the last request answered. */
export const CTL_ANSWERED = 1;
/** 1 once the worker is stopping on an error it cannot answer with (set before it throws). */
export const CTL_DEAD = 2;
export const CTL_SLOTS = 3;

export type FoldRequest =
  /** Journal lines (journal.ts), in journal order. */
  | { readonly t: "records"; readonly text: string }
  /** Commit everything received now and answer. */
  | { readonly t: "fold"; readonly id: number }
  /** Commit, close the database and stop. */
  | { readonly t: "close"; readonly id: number };

export type FoldReply =
  | { readonly id: number; readonly ok: true; readonly last?: Receipt }
  | { readonly id: number; readonly ok: false; readonly error: string };

/** How long the worker waits to retry a commit that failed (the receipts stay in the journal). */
export const RETRY_MS = 50;

import type { Overview, Period } from "./overview.ts";
import type { CallStatus } from "./status.ts";
import type { Receipt, ReceiptDraft, ReceiptQuery, VerifyResult } from "./types.ts";

/**
 * The receipt log: where the call path writes receipts and where their integrity is checked. A
 * backend is one folder (`receipts/sqlite/` today) whose factory returns a `ReceiptLog` and a
 * `ReceiptReader`; `packages/core/test/contracts/receipt-log.ts` is the suite it must pass.
 *
 * Staging stays synchronous on purpose: a crossing stages its receipt in memory (validated and
 * bounded at once) and only awaits `durable()` before an effect leaves the gateway, so a network
 * backend commits in groups behind `durable()` exactly as SQLite does. A Promise-returning `stage`
 * cost ~0.3–0.5 µs more per receipt and bought nothing (docs/receipts.md, "Storage ports").
 */
export interface ReceiptLog {
  /**
   * Queues a receipt for the next group commit (validated and bounded now; throws on a bad draft).
   * Await `durable()` before any step whose effect leaves the gateway. With `defer`, the receipt
   * does not start a commit of its own: it joins the next one and is committed at the latest after
   * a few milliseconds.
   */
  stage(draft: ReceiptDraft, options?: { readonly defer?: boolean }): void;
  /** Resolves once every receipt staged so far is committed; rejects if that commit failed. */
  durable(): Promise<void>;
  /** Stages and commits (with anything staged before it); resolves to the stored receipt. */
  append(draft: ReceiptDraft): Promise<Receipt>;
  /** Checks a run's receipts: the keyed chain from its first receipt through the one after its last, and the head. */
  verifyRun(runId: string): Promise<RunIntegrity>;
  /** Checks every receipt and the chain head; names the first bad row. */
  verify(): Promise<VerifyResult>;
  /** Where the chain's key and head live, for messages. */
  info(): Promise<ReceiptLogInfo>;
  /** Commits what is staged and releases what the log holds (not the database it was given). */
  close(): Promise<void>;
}

/** What the call path needs of the log: staging and the durability barrier. */
export type ReceiptStaging = Pick<ReceiptLog, "stage" | "durable">;

export type RunIntegrity =
  | { readonly ok: true }
  | { readonly ok: false; readonly brokenAt: string; readonly reason: string };

export interface ReceiptLogInfo {
  readonly dbId: string;
  readonly keyId: string;
  readonly keyPath?: string;
  readonly headPath?: string;
  readonly recordedKeyId?: string;
}

/**
 * Every read of the receipts: the console, the CLI, the HTTP API, the surfaces and the turn's
 * grounding ask here, never the tables. Every read sees every receipt staged before it.
 */
export interface ReceiptReader {
  /** A run's receipts in append order. */
  byRun(runId: string): Promise<Receipt[]>;
  /** The receipts of several runs, each run's in append order, runs in the order given. */
  byRuns(runIds: readonly string[]): Promise<Receipt[]>;
  /** The newest `limit` (default 200) receipts matching, oldest first. */
  query(q: ReceiptQuery): Promise<Receipt[]>;
  /** Runs, the most recently active first, with their conversation, tools and status. */
  runs(filter?: RunFilter): Promise<RunRow[]>;
  /** Conversations that have receipts, the most recently updated first (at most 200). */
  conversations(): Promise<Conversation[]>;
  /** The conversation key (`discord:…`, `terminal:…`) of a session id, if the session is known. */
  conversationOf(sessionId: string | undefined): Promise<string | undefined>;
  /** Conversation keys of the session ids that are known (unknown ids are left out). */
  conversationKeys(sessionIds: readonly string[]): Promise<Map<string, string>>;
  /**
   * The conversation turn a run served, if recorded: through the run's recorded code, else the
   * newest turn of its session started at or before `startedAt` that lists the run.
   */
  turnOfRun(runId: string, sessionId: string | undefined, startedAt: number): Promise<RunTurn | undefined>;
  /** What the console's overview charts for one period ending at `now` (outcomes, waits, slow and failing tools, denials). */
  overview(period: Period, now: number): Promise<Overview>;
}

export interface RunFilter {
  /** Session id (a conversation). */
  readonly session?: string;
  /** Tool path or glob (`calendar.*`). */
  readonly tool?: string;
  readonly status?: CallStatus;
  /** Runs active at or after this time (epoch ms). */
  readonly since?: number;
  /** Runs started at or before this time (epoch ms). */
  readonly until?: number;
  /** Free text: a run, call or receipt id, or text in a tool path, input, result, error, reason or the run's code. */
  readonly q?: string;
  /** 1–1000, default 100. */
  readonly limit?: number;
}

export interface RunRow {
  readonly runId: string;
  readonly sessionId?: string;
  readonly conversation?: string;
  readonly started: number;
  readonly last: number;
  readonly calls: number;
  readonly tools: readonly string[];
  /** pending when any call is, else failed, else denied, else succeeded. */
  readonly status: CallStatus;
  /** The turn the run served, when recorded: who asked and what. */
  readonly turn?: RunTurn;
}

/** The conversation turn a run served (the `turns` row its `run.started` event named). */
export interface RunTurn {
  readonly turnId: string;
  /** Who asked (the surface's user id), when the surface said. */
  readonly userId?: string;
  /** The user's message (redacted, cut when stored); absent for turns recorded before it was kept. */
  readonly request?: string;
  readonly model?: string;
  /** The final answer (redacted, cut when stored); absent while the turn runs. */
  readonly answer?: string;
  /** The answer claims an action no successful call backs (the grounding check); undefined while running. */
  readonly unverified?: boolean;
  readonly stopReason?: string;
  readonly startedAt: number;
  readonly finishedAt?: number;
}

export interface Conversation {
  readonly id: string;
  readonly key: string;
  readonly surface: string;
}

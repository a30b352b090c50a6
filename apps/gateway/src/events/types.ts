import type { ApprovalDecision, ApprovalRequest } from "@openassistant/core/approvals";
import type { CallOutcome, CallProgress } from "@openassistant/core/codemode";
import type { ActivitySummary } from "@openassistant/core/receipts";

/** Everything a surface or the HTTP API can observe about the gateway, as it happens. */
export type GatewayEvent =
  | {
      readonly type: "turn.started";
      readonly turnId: string;
      readonly sessionId: string;
      readonly surface: string;
      readonly at: number;
    }
  /** A streamed text delta from the model. */
  | { readonly type: "model.text"; readonly turnId: string; readonly text: string }
  /** Readable thinking of a model response (progress notes between tool calls), when the display returns it. */
  | { readonly type: "model.thinking"; readonly turnId: string; readonly text: string }
  /** The model call waits before a retry (rate limit / overload `retry-after`). */
  | { readonly type: "model.retrying"; readonly turnId: string; readonly seconds: number; readonly reason: string }
  /**
   * The text streamed so far in this round is withdrawn (a mid-stream error being retried, a
   * refusal, a reply cut off by a full context window): a live view replaces it, never appends.
   */
  | { readonly type: "model.text.discarded"; readonly turnId: string; readonly reason: string }
  /** The conversation was compacted to fit the model's context window (`omitted` stored messages left out). */
  | {
      readonly type: "history.compacted";
      readonly turnId: string;
      readonly omitted: number;
      readonly reason: "would_not_fit" | "prompt_too_long" | "window_exceeded";
    }
  /** A model round is starting (round 1 = first request of the turn). */
  | { readonly type: "model.request"; readonly turnId: string; readonly round: number }
  | {
      readonly type: "typecheck.failed";
      readonly turnId: string;
      readonly diagnostics: string;
      readonly repairRound: number;
    }
  | { readonly type: "run.started"; readonly turnId: string; readonly runId: string; readonly code: string }
  | {
      readonly type: "run.finished";
      readonly turnId: string;
      readonly runId: string;
      readonly ok: boolean;
      readonly error?: string;
    }
  | { readonly type: "call.settled"; readonly turnId?: string; readonly runId: string; readonly outcome: CallOutcome }
  /** A running tool reported progress (an MCP server's progress notifications, a task's status). */
  | {
      readonly type: "call.progress";
      readonly turnId?: string;
      readonly runId: string;
      readonly progress: CallProgress;
    }
  | { readonly type: "approval.requested"; readonly request: ApprovalRequest }
  | { readonly type: "approval.decided"; readonly callId: string; readonly decision: ApprovalDecision }
  /** #35: a configured model failed with an outage or a rate limit; the next one takes the call (model/chain.ts). */
  | {
      readonly type: "model.fallback";
      readonly turnId?: string;
      readonly from: string;
      readonly to: string;
      readonly reason: string;
      readonly message: string;
    }
  | {
      readonly type: "profile.rotated";
      readonly turnId?: string;
      readonly from: string;
      readonly to: string;
      readonly reason: string;
      readonly message?: string;
    }
  | {
      readonly type: "turn.finished";
      readonly turnId: string;
      readonly sessionId: string;
      readonly unverified: boolean;
      readonly runIds: readonly string[];
      readonly stopReason: TurnStopReason;
    }
  | {
      /** #30: a turn continued a run resumed after a restart, or answered again a turn a kill cut off; its answer, for the surface of the session to deliver. */
      readonly type: "turn.resumed";
      readonly turnId: string;
      readonly sessionId: string;
      readonly sessionKey: string;
      readonly surface: string;
      /** The resumed run; absent when the turn was cut off with no run to resume (the model was streaming) and answered again. */
      readonly runId?: string;
      readonly text: string;
      readonly summary: ActivitySummary;
      readonly summaryText: string;
      readonly unverified: boolean;
    }
  | {
      /** #33: a schedule's occurrence ran a turn in its conversation; its answer, for the surface of the session to deliver. */
      readonly type: "turn.scheduled";
      readonly turnId: string;
      readonly sessionId: string;
      readonly sessionKey: string;
      readonly surface: string;
      readonly scheduleId: string;
      readonly scheduleName: string;
      readonly text: string;
      readonly summary: ActivitySummary;
      readonly summaryText: string;
      readonly unverified: boolean;
    }
  | {
      /** #33: a schedule failed `ALERT_AFTER_FAILURES` times in a row: its creator is told, in its conversation. */
      readonly type: "schedule.alert";
      readonly scheduleId: string;
      readonly sessionKey: string;
      readonly surface: string;
      /** Who created the schedule (`discord:<id>`, `cli`, `config`). */
      readonly createdBy: string;
      readonly text: string;
    }
  | {
      /** #32: an ability run ended (completed, failed, denied, cancelled); its conversation's surface tells the user. */
      readonly type: "ability.finished";
      readonly abilityRunId: string;
      readonly ability: string;
      readonly status: string;
      readonly sessionId: string;
      readonly sessionKey: string;
      readonly surface: string;
      readonly text: string;
      readonly summary: ActivitySummary;
      readonly summaryText: string;
    }
  | { readonly type: "error"; readonly turnId?: string; readonly code: string; readonly message: string };

/** Why a turn ended. */
export type TurnStopReason =
  | "answered"
  | "max_rounds"
  | "max_repairs"
  | "token_budget"
  | "timeout"
  | "aborted"
  | "model_error"
  /** The model declined (stop_reason "refusal"); no partial answer is kept. */
  | "refused"
  /** The conversation filled the model's context window. */
  | "context_full";

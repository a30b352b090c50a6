import { callStatus, formatSummaryForModel, summarizeRun, type ActivitySummary, type Receipt } from "@openassistant/core/receipts/index.ts";
import { findActionClaims, type ActionClaim } from "./claims.ts";
import { READ_VERBS } from "./lexicon.ts";

export const UNVERIFIED_MARK = "⚠️ unverified: no successful tool call backs this claim";

export interface Grounding {
  readonly summary: ActivitySummary;
  /** One line per relevant call (✅ ⛔ ❌ ⏳ with receipt refs), or "No tool calls were made." */
  readonly summaryText: string;
  readonly claims: readonly ActionClaim[];
  /** The text claims an action and no success receipt of this turn backs it. */
  readonly unverified: boolean;
}

const readVerbs = new Set(READ_VERBS);

/** A call that can change something: approval/policy `required`, or an auto call not named like a read. */
function isActionCall(r: Receipt): boolean {
  if (r.policy === "required" || r.approval === "required") return true;
  const last = r.toolPath.split(".").pop()!.toLowerCase();
  const verb = last.split(/(?=[A-Z])|_/)[0]!.toLowerCase();
  return !readVerbs.has(last) && !readVerbs.has(verb);
}

/**
 * True when the turn has a success receipt that can back an action claim:
 * if the turn attempted any approval-required call, one of those must have succeeded;
 * otherwise some succeeded call that is not a read must exist.
 */
export function hasBackingReceipt(receipts: readonly Receipt[]): boolean {
  const status = callStatus(receipts);
  const first = new Map<string, Receipt>();
  for (const r of receipts) if (!first.has(r.callId)) first.set(r.callId, r);
  const calls = [...first.values()];
  const required = calls.filter((r) => r.policy === "required" || r.approval === "required");
  const candidates = required.length ? required : calls.filter(isActionCall);
  return candidates.some((r) => status.get(r.callId) === "succeeded");
}

/** Grounds a final answer in the receipts of every run of the turn. */
export function groundAnswer(text: string, receipts: readonly Receipt[]): Grounding {
  const summary = summarizeRun(receipts);
  const claims = findActionClaims(text);
  return {
    summary,
    summaryText: formatSummaryForModel(summary),
    claims,
    unverified: claims.length > 0 && !hasBackingReceipt(receipts),
  };
}

/** The block appended to each run's tool_result so the model's final answer sees the turn's evidence. */
export function summaryForModel(receipts: readonly Receipt[]): string {
  return [
    "Relevant tool activity this turn (from the gateway's receipts; the user sees these lines under your answer).",
    "Only claim an action was done if a ✅ line shows it; say plainly what was denied, failed or is pending:",
    formatSummaryForModel(summarizeRun(receipts)),
  ].join("\n");
}

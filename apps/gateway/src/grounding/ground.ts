import {
  callStatus,
  formatSummaryForModel,
  summarizeRun,
  type ActivitySummary,
  type Receipt,
} from "@openassistant/core/receipts";
import { findActionClaims, type ActionClaim } from "./claims.ts";
import { CLAIM_VERB_STEMS, READ_VERBS } from "./lexicon.ts";
import { findReminderPromises, hasIntegrationSuccess, isReminderClaim } from "./reminders.ts";

export const UNVERIFIED_MARK = "⚠️ unverified: no successful tool call backs this claim";

export interface Grounding {
  readonly summary: ActivitySummary;
  /** One line per relevant call (✅ ⛔ ❌ ⏳ with receipt refs), or "No tool calls were made." */
  readonly summaryText: string;
  readonly claims: readonly ActionClaim[];
  /** Claims no succeeded call of this turn backs (see claimIsBacked). */
  readonly unbackedClaims: readonly ActionClaim[];
  /** The text claims an action and no success receipt of this turn backs it. */
  readonly unverified: boolean;
}

const readVerbs = new Set(READ_VERBS);

/** A call that can change something: approval/policy `required`, or an auto call not named like a read. */
function isActionCall(r: Receipt): boolean {
  if (r.policy === "required" || r.approval === "required") return true;
  const segment = r.toolPath.split(".").pop()!;
  const last = segment.toLowerCase();
  // Split before lowercasing, or camelCase (getEvents) has no boundary left to split on.
  const verb = segment.split(/(?=[A-Z])|_/)[0]!.toLowerCase();
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

/** Lower-case words of a tool path: `calendar.createEvent` / `mail_send-now` → calendar, create, event / mail, send, now. */
export function toolPathWords(toolPath: string): string[] {
  return toolPath
    .split(/[._\-\s]+|(?<=[a-z0-9])(?=[A-Z])/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

const matchesStem = (word: string, stem: string) => word === stem || word === `${stem}s` || word === `${stem}es`;

/**
 * True when a succeeded call of the turn backs this claim. A claim verb with a stem family
 * (lexicon `CLAIM_VERB_STEMS`) needs a succeeded, non-read call whose path contains one of its
 * stems ("sent" ← `mail.send`). When no call of the turn matches the family at all (unusual tool
 * names), or the verb has no family, the general rule `hasBackingReceipt` applies.
 */
export function claimIsBacked(claim: ActionClaim, receipts: readonly Receipt[]): boolean {
  const stems = CLAIM_VERB_STEMS[claim.verb];
  if (!stems) return hasBackingReceipt(receipts);
  const status = callStatus(receipts);
  const first = new Map<string, Receipt>();
  for (const r of receipts) if (!first.has(r.callId)) first.set(r.callId, r);
  const matching = [...first.values()].filter((r) =>
    toolPathWords(r.toolPath).some((w) => stems.some((s) => matchesStem(w, s))),
  );
  if (!matching.length) return hasBackingReceipt(receipts);
  return matching.some((r) => isActionCall(r) && status.get(r.callId) === "succeeded");
}

/** Grounds a final answer in the receipts of every run of the turn. */
export function groundAnswer(text: string, receipts: readonly Receipt[]): Grounding {
  const summary = summarizeRun(receipts);
  const found = findActionClaims(text);
  const claimed = new Set(found.map((c) => c.sentence));
  // "I'll notify you when …" is a claim too; a sentence already counted is not counted twice.
  const claims = [...found, ...findReminderPromises(text).filter((p) => !claimed.has(p.sentence))];
  // A reminder-style claim also needs an integration's success: a written tool file alone watches nothing.
  const integrated = hasIntegrationSuccess(receipts, isActionCall);
  const unbackedClaims = claims.filter(
    (c) => (isReminderClaim(c) && !integrated) || (c.verb !== "notify" && !claimIsBacked(c, receipts)),
  );
  return {
    summary,
    summaryText: formatSummaryForModel(summary),
    claims,
    unbackedClaims,
    unverified: unbackedClaims.length > 0,
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

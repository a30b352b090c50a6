import { callStatus, type Receipt } from "@openassistant/core/receipts";
import type { ActionClaim } from "./claims.ts";

/**
 * Reminder-style claims: an answer that says the user will be told about something later ("I'll
 * notify you when signups drop below 50", "I set up an alert that fires when …"). Such a promise
 * holds only if something outside the assistant now watches: an integration call (PostHog alert,
 * calendar reminder…) that succeeded this turn. Writing a tool file (`tools.workspace.*`) is not
 * that: the tool may never have run, or its call may have been denied.
 */

/** Words that make a sentence about being told later. */
const REMINDER_WORDS =
  /\b(notify|notifies|notified|notification|alert|alerts|alerted|remind|reminds|reminded|reminder|monitor|monitors|monitoring|watch(?:es|ing)?|let you know|ping you|heads[- ]up|keep an eye)\b/i;

/** A promise to tell the user later, stated as a fact ("I'll notify you", "you will get an alert"). */
const PROMISE =
  /\b(i'll|i will|i'm going to|we'll|we will|you'll|you will|it'll|it will|this will|that will)\s+(?:now\s+|automatically\s+)?(?:be\s+)?(notify|notified|alert|alerted|remind|reminded|let you know|ping you|get (?:a|an) (?:alert|notification|reminder|message)|watch|monitor|keep an eye)\b/i;

/** Sentences, as findActionClaims splits them (code and quoted text left out). */
function sentences(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, " ").replace(/`[^`]*`/g, " ");
  return prose
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s && !s.endsWith("?"));
}

/** Promises to tell the user later; each counts as a claim (verb `notify`) that needs backing. */
export function findReminderPromises(text: string): ActionClaim[] {
  return sentences(text)
    .filter((s) => {
      const m = PROMISE.exec(s);
      // "If you approve it, I'll notify you" / "I could notify you": a condition or offer, not a claim.
      return m !== null && !/\b(if|unless|once|would|could|can't|cannot|won't|not)\b/i.test(s.slice(0, m.index));
    })
    .map((sentence) => ({ verb: "notify", sentence }));
}

/** Whether a claim is about being told later (the sentence names a notification, alert or reminder). */
export function isReminderClaim(claim: ActionClaim): boolean {
  return REMINDER_WORDS.test(claim.sentence);
}

/** Tools that write the assistant's own tool files; their success is not an integration's. */
const AUTHORING = /^workspace\./;

/**
 * True when a call outside the tool-authoring namespace that can change something succeeded:
 * an integration did the setting up. A read (its tool path named like one) does not count;
 * `isActionCall` decides which calls can change something.
 */
export function hasIntegrationSuccess(receipts: readonly Receipt[], isActionCall: (r: Receipt) => boolean): boolean {
  const status = callStatus(receipts);
  const first = new Map<string, Receipt>();
  for (const r of receipts) if (!first.has(r.callId)) first.set(r.callId, r);
  return [...first.values()].some(
    (r) => !AUTHORING.test(r.toolPath) && isActionCall(r) && status.get(r.callId) === "succeeded",
  );
}

/**
 * The English words the claim checker looks for. One file, so the rule is reviewable and
 * extendable in one place. All entries are lower case.
 */

/** Past tense / past participle forms that state an action was carried out. */
export const CLAIM_VERBS: readonly string[] = [
  "scheduled",
  "rescheduled",
  "created",
  "sent",
  "deleted",
  "updated",
  "booked",
  "added",
  "removed",
  "cancelled",
  "canceled",
  "posted",
  "saved",
  "set up",
  "submitted",
  "published",
  "uploaded",
  "emailed",
  "messaged",
  "notified",
  "invited",
  "reserved",
  "ordered",
  "paid",
  "transferred",
  "moved",
  "renamed",
  "archived",
  "merged",
  "closed",
  "opened",
  "assigned",
  "completed",
  "marked",
  "replied",
  "forwarded",
  "shared",
  "stored",
  "recorded",
  "registered",
  "subscribed",
  "unsubscribed",
  "enabled",
  "disabled",
  "installed",
  "deployed",
  "triggered",
  "started",
  "stopped",
  "restarted",
  "edited",
  "changed",
  "modified",
  "written",
  "wrote",
  "filed",
  "logged",
  "reminded",
  "purchased",
  "confirmed",
  "accepted",
  "declined",
  "approved",
  "rejected",
];

/**
 * Words that, shortly before a claim verb in the same sentence, turn it into a non-claim
 * ("was not sent", "couldn't be created", "nothing was deleted", "failed to get scheduled").
 */
export const NEGATIONS: readonly string[] = [
  "not",
  "never",
  "no",
  "nothing",
  "none",
  "neither",
  "nor",
  "cannot",
  "can't",
  "couldn't",
  "could not",
  "wasn't",
  "weren't",
  "isn't",
  "aren't",
  "hasn't",
  "haven't",
  "hadn't",
  "didn't",
  "won't",
  "wouldn't",
  "unable",
  "failed",
  "fail",
  "without",
  "unverified",
  "denied",
  "if",
  "once",
  "when",
  "whether",
  "would",
  "should",
  "will",
  "could",
  "can",
  "may",
  "might",
  "want",
  "like",
];

/** How many words before a claim verb a negation may appear. */
export const NEGATION_WINDOW = 5;

/**
 * Last path segments that name a read. An auto-approved call with such a name does not back an
 * action claim (listing a calendar does not create an event).
 */
export const READ_VERBS: readonly string[] = [
  "get",
  "list",
  "search",
  "find",
  "read",
  "query",
  "fetch",
  "lookup",
  "look",
  "check",
  "show",
  "describe",
  "count",
  "status",
  "view",
  "peek",
  "preview",
  "stat",
  "info",
  "ping",
  "whoami",
  "now",
];

/**
 * Claim verb → verb stems a tool path must contain (as a segment, after splitting on `.`, `_`, `-`
 * and camelCase) for a call to back that claim: "I sent the mail" needs a succeeded `mail.send`,
 * `slack.postMessage`, …, not just any successful call. Claim verbs not listed here, and claims
 * whose family matches no tool the turn touched, fall back to the general rule (ground.ts).
 */
const SEND = ["send", "post", "mail", "email", "message"];
const DELETE = ["delete", "remove", "cancel"];
const CREATE = ["create", "add", "schedule", "book", "save", "write", "insert", "new"];
const UPDATE = ["update", "edit", "set", "change", "rename", "move", "patch"];
const CANCEL = ["cancel", "delete"];

export const CLAIM_VERB_STEMS: Readonly<Record<string, readonly string[]>> = {
  sent: SEND,
  posted: SEND,
  emailed: SEND,
  messaged: SEND,
  deleted: DELETE,
  removed: DELETE,
  created: CREATE,
  added: CREATE,
  scheduled: CREATE,
  booked: CREATE,
  saved: CREATE,
  updated: UPDATE,
  changed: UPDATE,
  renamed: UPDATE,
  moved: UPDATE,
  edited: UPDATE,
  modified: UPDATE,
  rescheduled: [...UPDATE, "schedule", "reschedule"],
  cancelled: CANCEL,
  canceled: CANCEL,
};

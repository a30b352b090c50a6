import type { Receipt, ReceiptPhase } from "./types.ts";

export type CallStatus = "succeeded" | "failed" | "denied" | "pending";

/** requested/approved/started have no outcome yet (a started call is running: shown as pending). */
export function phaseStatus(phase: ReceiptPhase): CallStatus {
  switch (phase) {
    case "succeeded":
      return "succeeded";
    case "failed":
      return "failed";
    case "denied":
      return "denied";
    default:
      return "pending";
  }
}

/**
 * Current status of each call (keyed by call id, which is globally unique: approvals use it as
 * their key), taken from the call's latest receipt by `seq`, whatever order the input is in.
 */
export function callStatus(receipts: readonly Receipt[]): Map<string, CallStatus> {
  const latest = new Map<string, Receipt>();
  for (const r of receipts) {
    const cur = latest.get(r.callId);
    if (!cur || r.seq > cur.seq) latest.set(r.callId, r);
  }
  const out = new Map<string, CallStatus>();
  for (const [callId, r] of latest) out.set(callId, phaseStatus(r.phase));
  return out;
}

/** Call statuses, what needs attention first: a run's status is the first one any of its calls has. */
export const RUN_STATUSES: readonly CallStatus[] = ["pending", "failed", "denied", "succeeded"];

/** Worst call status of a run: what needs attention first. */
export function runStatus(statuses: Iterable<CallStatus>): CallStatus {
  let worst: CallStatus = "succeeded";
  for (const s of statuses) if (RUN_STATUSES.indexOf(s) < RUN_STATUSES.indexOf(worst)) worst = s;
  return worst;
}

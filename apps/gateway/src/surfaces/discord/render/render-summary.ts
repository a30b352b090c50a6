import type { ActivityItem, ActivitySummary } from "@openassistant/core/receipts";
import { fitText } from "./fit.ts";
import { renderOperator } from "../operator-id.ts";

const ICON = { succeeded: "✅", failed: "❌", denied: "⛔", pending: "⏳" } as const;
const MAX_REASON = 120;

function clip(s: string, max: number): string {
  const one = s.replace(/\s+/g, " ").trim();
  return fitText(one, max, "ellipsis");
}

/** `(runId, callId) → URL` of the call's page in the console, when the console is on. */
export type ReceiptLink = (runId: string, callId: string) => string;

function line(i: ActivityItem, link?: ReceiptLink): string {
  const tool = `\`${i.toolId}\``;
  const ref = link ? ` · [\`${i.receiptRef}\`](${link(i.runId, i.callId)})` : ` · \`${i.receiptRef}\``;
  const by = i.approval.decision === "approved" ? ` (approved by ${renderOperator(i.approval.by)})` : "";
  switch (i.status) {
    case "succeeded":
      return `${ICON.succeeded} ${tool}${by}${ref}`;
    case "failed":
      return `${ICON.failed} ${tool} failed: ${clip(i.error ?? i.reason ?? "no error recorded", MAX_REASON)}${ref}`;
    case "denied":
      return `${ICON.denied} ${tool} denied by ${renderOperator(i.approval.by)}${i.reason ? `: "${clip(i.reason, MAX_REASON)}"` : ""}${ref}`;
    case "pending":
      return `${ICON.pending} ${tool} ${i.lastPhase === "requested" ? "waiting for approval" : i.lastPhase === "started" ? "started, no result recorded" : "not started"}${ref}`;
  }
}

export const UNVERIFIED_MARK =
  "⚠️ **Unverified:** the answer describes an action that has no success receipt. Check the activity above before relying on it.";

/**
 * The compact block shown under an answer (the description of an embed titled "Activity"): one line
 * per relevant call with its receipt id (a link to the call's console page when `link` is given), then the unverified mark when grounding flagged the answer.
 * Empty string when there is nothing to show.
 */
export function renderActivity(summary: ActivitySummary | undefined, unverified: boolean, link?: ReceiptLink): string {
  const lines: string[] = [];
  if (summary && summary.items.length > 0) {
    for (const i of summary.items) lines.push(line(i, link));
    if (summary.omittedReads > 0)
      lines.push(`_+${summary.omittedReads} successful read${summary.omittedReads === 1 ? "" : "s"} not shown_`);
  }
  if (unverified) lines.push(UNVERIFIED_MARK);
  return lines.join("\n");
}

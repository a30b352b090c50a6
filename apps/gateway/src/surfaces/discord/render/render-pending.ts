import type { ApprovalRequest } from "@openassistant/core/approvals";
import { cardButtonId } from "../custom-ids.ts";
import { echo } from "./fit.ts";
import { renderOperator } from "../operator-id.ts";

/** Discord allows 5 action rows per message: one row (Approve / Deny) per approval shown with buttons. */
const WITH_BUTTONS = 5;
const LISTED = 20;

/**
 * The `/approvals` reply: pending approvals, oldest first, the first five with Approve / Deny
 * buttons (decided server side like a card's), the rest by call id for `/approve`.
 */
export function renderPendingList(pending: readonly ApprovalRequest[]): {
  content: string;
  components: Array<Record<string, unknown>>;
} {
  if (pending.length === 0) return { content: "No approvals are pending.", components: [] };
  const sorted = [...pending].sort((a, b) => a.requestedAt - b.requestedAt);
  const lines = [`**Pending approvals** (${pending.length})`];
  sorted.slice(0, LISTED).forEach((r, n) => {
    const by = r.requestedBy ? ` · asked by ${renderOperator(r.requestedBy)}` : "";
    lines.push(
      `${n + 1}. \`${echo(r.toolPath, 80)}\` · call \`${r.callId}\`${by} · expires <t:${Math.floor(r.expiresAt / 1000)}:R>`,
    );
  });
  if (sorted.length > LISTED) lines.push(`… and ${sorted.length - LISTED} more.`);
  lines.push("-# Buttons decide the first five; any other: `/approve id:<call id> decision:approve|deny`.");
  const components = sorted.slice(0, WITH_BUTTONS).map((r, n) => ({
    type: 1,
    components: [
      { type: 2, style: 3, label: `Approve ${n + 1}. ${r.toolPath}`, custom_id: cardButtonId("lapprove", r.callId) },
      { type: 2, style: 4, label: `Deny ${n + 1}. ${r.toolPath}`, custom_id: cardButtonId("ldeny", r.callId) },
    ],
  }));
  return { content: lines.join("\n"), components };
}

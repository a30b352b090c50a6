import type { ApprovalRule } from "@openassistant/core/approvals";
import { escapeInvisible } from "@openassistant/core/text";
import { html, type SafeHtml } from "../html.ts";
import { formatTime, layout, type Viewer } from "./layout.ts";

/** Outcomes of a revoke, shown once after the redirect (a fixed set: nothing from the URL is echoed). */
export const RULE_NOTICES = {
  revoked: "Revoked. Calls to these tools ask an approver again.",
  gone: "That rule was already revoked or does not exist; nothing changed.",
} as const;
export type RuleNotice = keyof typeof RULE_NOTICES;

function state(r: ApprovalRule, now: number): SafeHtml {
  if (r.revokedAt !== undefined)
    return html`<span class="status denied">revoked</span> by <code>${escapeInvisible(r.revokedBy ?? "")}</code> at ${formatTime(r.revokedAt)}`;
  if (r.expiresAt !== undefined && r.expiresAt <= now)
    return html`<span class="muted">expired ${formatTime(r.expiresAt)}</span>`;
  return html`<span class="status succeeded">active</span>${r.expiresAt !== undefined ? html` until ${formatTime(r.expiresAt)}` : ""}`;
}

/**
 * The standing "approve always" rules, newest first: what they approve, where, who made them and
 * when, and a Revoke button (a same-origin POST, approvers only) on the active ones.
 */
export function rulesPage(
  viewer: Viewer,
  rules: readonly ApprovalRule[],
  conversations: ReadonlyMap<string, string>,
  o: { now: number; canRevoke: boolean; notice?: RuleNotice },
): SafeHtml {
  const rows = [...rules].reverse().map((r) => {
    const active = r.revokedAt === undefined && (r.expiresAt === undefined || r.expiresAt > o.now);
    const where =
      r.scope === "global"
        ? html`everywhere`
        : html`conversation <code>${conversations.get(r.sessionId ?? "") ?? r.sessionId ?? ""}</code>`;
    return html`<tr data-rule="${r.id}">
      <td><code>${r.id}</code></td>
      <td><code>${escapeInvisible(r.toolPath)}</code></td>
      <td>${where}</td>
      <td><code>${escapeInvisible(r.createdBy)}</code></td>
      <td>${formatTime(r.createdAt)}</td>
      <td class="state">${state(r, o.now)}</td>
      <td>${
        active && o.canRevoke
          ? html`<form method="post" action="/console/rules/${encodeURIComponent(r.id)}/revoke"><button class="deny" type="submit">Revoke</button></form>`
          : ""
      }</td>
    </tr>`;
  });
  const body = html`<h1>Approve-always rules</h1>
    ${o.notice ? html`<p class="notice" id="notice">${RULE_NOTICES[o.notice]}</p>` : ""}
    <p class="muted">A rule approves matching calls without asking (receipts record the decider as <code>rule:&lt;id&gt;</code>). Revoking one makes those calls ask an approver again.</p>
    ${
      rows.length
        ? html`<table id="rules-table"><thead><tr><th>Rule</th><th>Tools</th><th>Where</th><th>Made by</th><th>Made</th><th>State</th><th></th></tr></thead><tbody>${rows}</tbody></table>`
        : html`<p class="muted" id="no-rules">No approve-always rules yet (an approver makes one with "Approve always" on an approval card).</p>`
    }`;
  return layout({ title: "Rules", ...viewer, active: "rules" }, body);
}

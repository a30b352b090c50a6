import type { ApprovalRequest } from "@openassistant/core/approvals";
import { escapeInvisible } from "@openassistant/core/text";
import { html, type SafeHtml } from "../html.ts";
import { formatTime, layout, type Viewer } from "./layout.ts";

/** Outcomes of a decision, shown once after the redirect (a fixed set: nothing from the URL is echoed). */
export const NOTICES = {
  approved: "Approved. The call runs now.",
  denied: "Denied. The model is told the reason.",
  already: "Someone decided this call first; their decision stands.",
  unknown: "No such approval (it may have expired or the run ended).",
} as const;
export type Notice = keyof typeof NOTICES;

function card(req: ApprovalRequest, redact: (t: string) => string, canDecide: boolean): SafeHtml {
  const shown = (t: string) => escapeInvisible(redact(t));
  const input = req.inputJson ?? req.inputPreview;
  const action = `/console/approvals/${encodeURIComponent(req.callId)}`;
  return html`<section class="card approval" data-call="${req.callId}">
    <h3>Approve <code>tools.${req.toolPath}</code>?</h3>
    <p>${shown(req.description)}</p>
    <dl class="meta">
      <dt>Requested by</dt><dd>${req.requestedBy ? html`<code>${shown(req.requestedBy)}</code>` : "unknown"}</dd>
      <dt>Requested</dt><dd>${formatTime(req.requestedAt)}</dd>
      <dt>Expires</dt><dd>${formatTime(req.expiresAt)} (then denied by timeout)</dd>
      <dt>Run</dt><dd><a href="/console/runs/${encodeURIComponent(req.runId)}#call-${req.callId}"><code>${req.runId}</code></a></dd>
    </dl>
    ${req.summary ? html`<div>Summary</div><pre>${shown(req.summary)}</pre>` : ""}
    <pre class="input">${shown(input)}</pre>
    ${req.code ? html`<details><summary>Code the model wrote</summary><pre>${shown(req.code)}</pre></details>` : ""}
    ${
      canDecide
        ? html`<div class="actions">
      <form method="post" action="${action}/approve"><button class="approve" type="submit">Approve</button></form>
      <form method="post" action="${action}/deny"><button class="deny" type="submit">Deny</button></form>
      <form method="post" action="${action}/deny">
        <input name="reason" required maxlength="500" placeholder="reason (the model sees it)" aria-label="Deny reason">
        <button type="submit">Deny with reason</button>
      </form>
    </div>`
        : html`<p class="muted">You are not an approver: you can see this request but not decide it.</p>`
    }
  </section>`;
}

/** Pending approvals with the Discord card's information and Approve / Deny / Deny with reason. */
export function approvalsList(
  pending: readonly ApprovalRequest[],
  redact: (t: string) => string,
  canDecide: boolean,
): SafeHtml {
  return pending.length
    ? html`${pending.map((r) => card(r, redact, canDecide))}`
    : html`<p class="muted" id="no-approvals">Nothing is waiting for approval.</p>`;
}

export function approvalsPage(
  viewer: Viewer,
  pending: readonly ApprovalRequest[],
  redact: (t: string) => string,
  canDecide: boolean,
  notice?: Notice,
): SafeHtml {
  const body = html`<h1>Pending approvals</h1>
    ${notice ? html`<p class="notice" id="notice">${NOTICES[notice]}</p>` : ""}
    <div id="approvals" data-live hx-get="/console/approvals/list" hx-trigger="oa:refresh">
      ${approvalsList(pending, redact, canDecide)}
    </div>`;
  return layout({ title: "Approvals", ...viewer, active: "approvals" }, body);
}

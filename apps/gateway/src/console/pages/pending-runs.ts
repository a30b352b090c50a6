import { escapeInvisible } from "@openassistant/core/text";
import type { ListedRun } from "../../runs/operator-control.ts";
import { html, type SafeHtml } from "../html.ts";
import { formatTime, layout, type Viewer } from "./layout.ts";

/** Outcomes of a cancel, shown once after the redirect (a fixed set: nothing from the URL is echoed). */
export const PENDING_NOTICES = {
  cancelled: "Cancelled. Its waiting calls are denied, its calls cut off running are closed as outcome unknown.",
  none: "That run has no pending call any more; nothing changed.",
  running: "This gateway runs that run (it started or resumed it here): it was not cancelled.",
} as const;
export type PendingNotice = keyof typeof PENDING_NOTICES;

const WHY_NOT = {
  "resumed here": "resumed by this gateway: decide its approvals instead",
  "running here": "running in this gateway: decide its approvals instead",
} as const;

function waitsOn(run: ListedRun): SafeHtml[] {
  return run.calls.map(
    (c) =>
      html`<li><code>tools.${escapeInvisible(c.toolPath)}</code> ${c.phase === "started" ? "cut off while running" : `waiting for a decision (${c.phase})`} since ${formatTime(c.since)}</li>`,
  );
}

/**
 * The runs whose receipts show a call without an outcome, with a Cancel button (a same-origin POST,
 * approvers only) on those no process of this gateway runs: what a kill or crash left behind.
 */
export function pendingRunsPage(
  viewer: Viewer,
  runs: readonly ListedRun[],
  o: { canCancel: boolean; notice?: PendingNotice },
): SafeHtml {
  const rows = runs.map(
    (run) => html`<tr data-run="${run.runId}">
      <td><a href="/console/runs/${encodeURIComponent(run.runId)}"><code>${escapeInvisible(run.runId)}</code></a></td>
      <td><ul class="waits">${waitsOn(run)}</ul></td>
      <td>${formatTime(run.started)}</td>
      <td>${run.journaled ? `journaled${run.resumes ? `, resumed ${run.resumes}×` : ""}` : "not journaled"}</td>
      <td class="cancel">${
        run.notCancellable
          ? html`<span class="muted">${WHY_NOT[run.notCancellable]}</span>`
          : o.canCancel
            ? html`<form method="post" action="/console/pending/${encodeURIComponent(run.runId)}/cancel"><button class="deny" type="submit">Cancel</button></form>`
            : ""
      }</td>
    </tr>`,
  );
  const body = html`<h1>Pending runs</h1>
    ${o.notice ? html`<p class="notice" id="notice">${PENDING_NOTICES[o.notice]}</p>` : ""}
    <p class="muted">Runs whose receipts show a call without an outcome. Those a stopped or killed gateway left and this one did not resume can be cancelled (as <code>openassistant runs cancel</code>): waiting calls are denied, calls cut off while running are closed as outcome unknown. Receipts are only appended.</p>
    ${
      rows.length
        ? html`<table id="pending-table"><thead><tr><th>Run</th><th>Waits on</th><th>Started</th><th>Journal</th><th></th></tr></thead><tbody>${rows}</tbody></table>`
        : html`<p class="muted" id="no-pending">No pending runs.</p>`
    }`;
  return layout({ title: "Pending runs", ...viewer, active: "pending" }, body);
}

import type { ApprovalRecord } from "@openassistant/core/approvals/store.ts";
import { phaseStatus, summarizeRun, type ActivityItem } from "@openassistant/core/receipts/index.ts";
import type { Receipt } from "@openassistant/core/receipts/types.ts";
import { escapeInvisible } from "@openassistant/core/text/index.ts";
import { html, type SafeHtml } from "../html.ts";
import { formatTime, layout, statusBadge } from "./layout.ts";
import { callTimeline } from "./run-timeline.ts";

export interface RunPageData {
  readonly runId: string;
  readonly receipts: readonly Receipt[];
  readonly integrity: { ok: true } | { ok: false; brokenAt: string; reason: string };
  readonly code?: string;
  readonly conversation?: string;
  readonly approvals: (callId: string) => ApprovalRecord | undefined;
  /** Scrubs known secrets (receipts are redacted when written; this catches secrets configured since). */
  readonly redact: (text: string) => string;
  readonly operator?: string;
}

/** Text as shown: secrets redacted, invisible and bidi characters escaped (then HTML-escaped by `html`). */
const shown = (redact: (t: string) => string, text: string) => escapeInvisible(redact(text));

function summaryLine(i: ActivityItem, redact: (t: string) => string): SafeHtml {
  const by = i.approval.by ? ` by ${i.approval.by}` : "";
  const what =
    i.status === "succeeded"
      ? i.approval.decision === "approved"
        ? `(approved${by})`
        : ""
      : i.status === "denied"
        ? `${by.trim()}${i.reason ? `: ${i.reason}` : ""}`
        : i.status === "failed"
          ? `${i.error ?? i.reason ?? "no error recorded"}`
          : i.lastPhase === "requested" && i.approval.mode === "required"
            ? "waiting for approval"
            : `${i.lastPhase}, no result yet`;
  return html`<li>${statusBadge(i.status)} <a href="#call-${i.callId}"><code>${i.toolId}</code></a> ${shown(redact, what)}
    <span class="muted">[${i.receiptRef}]</span></li>`;
}

function callSection(d: RunPageData, callId: string, receipts: readonly Receipt[]): SafeHtml {
  const first = receipts[0]!;
  const last = receipts.at(-1)!;
  const input = [...receipts].reverse().find((r) => r.inputPreview !== undefined)?.inputPreview;
  const result = last.outputPreview ?? last.error;
  const steps = callTimeline(receipts, d.approvals(callId));
  return html`<section class="card call" id="call-${callId}">
    <h3><code>tools.${first.toolPath}</code> ${statusBadge(phaseStatus(last.phase))}
      <span class="muted">call ${callId} · policy ${last.policy}</span></h3>
    <ol class="timeline">
      ${steps.map(
        (
          s,
        ) => html`<li class="${s.derived ? "derived" : ""}">${formatTime(s.at)} — <strong>${shown(d.redact, s.label)}</strong>
          ${s.detail ? html`— ${shown(d.redact, s.detail)}` : ""}
          <span class="ref">${s.derived ? "implied by " : ""}${s.receipt.id}</span></li>`,
      )}
    </ol>
    ${input !== undefined ? html`<div>Input</div><pre class="input">${shown(d.redact, input)}</pre>` : ""}
    ${result !== undefined ? html`<div>${last.error !== undefined ? "Error" : "Result"}</div><pre class="result">${shown(d.redact, result)}</pre>` : ""}
  </section>`;
}

/** One run: the code, the activity summary, each call's receipt timeline, and the chain check. */
export function runPage(d: RunPageData): SafeHtml {
  const byCall = new Map<string, Receipt[]>();
  for (const r of d.receipts) {
    const list = byCall.get(r.callId);
    if (list) list.push(r);
    else byCall.set(r.callId, [r]);
  }
  const summary = summarizeRun(d.receipts);
  const integrity = d.integrity.ok
    ? html`<span class="integrity ok">✔ hash chain verified (HMAC, from this run's first receipt through the one after its last)</span>`
    : html`<span class="integrity broken">✘ hash chain broken at ${d.integrity.brokenAt}: ${d.integrity.reason}</span>`;
  const calls = [...byCall].map(([callId, receipts]) => callSection(d, callId, receipts));
  const body = html`<h1>Run <code>${d.runId}</code></h1>
    <dl class="meta">
      <dt>Conversation</dt><dd>${d.conversation ? html`<code>${d.conversation}</code>` : "unknown"}</dd>
      <dt>Started</dt><dd>${formatTime(d.receipts[0]?.at)}</dd>
      <dt>Calls</dt><dd>${byCall.size}</dd>
      <dt>Integrity</dt><dd id="integrity">${integrity}</dd>
    </dl>
    <h2>Code the model wrote</h2>
    ${d.code !== undefined ? html`<pre class="code">${shown(d.redact, d.code)}</pre>` : html`<p class="muted">Not recorded (the run predates the console).</p>`}
    <h2>Relevant activity</h2>
    <ul class="summary">${summary.items.map((i) => summaryLine(i, d.redact))}</ul>
    ${summary.omittedReads ? html`<p class="muted">+${summary.omittedReads} successful reads not shown (below in the calls)</p>` : ""}
    <h2>Calls</h2>
    <div id="calls">${calls}</div>`;
  return layout({ title: `Run ${d.runId}`, ...(d.operator ? { operator: d.operator } : {}), active: "runs" }, body);
}

import type { ApprovalRecord } from "@openassistant/core/approvals";
import { phaseStatus, summarizeRun, type ActivityItem } from "@openassistant/core/receipts";
import type { Receipt } from "@openassistant/core/receipts";
import { escapeInvisible } from "@openassistant/core/text";
import { html, raw, type SafeHtml } from "../html.ts";
import { firstWords, formatDuration, formatTime, layout, statusBadge, type Viewer } from "./layout.ts";
import type { RunTurn } from "@openassistant/core/receipts";
import { callTimeline } from "./run-timeline.ts";
import { RESUMED } from "@openassistant/core/codemode";

export interface RunPageData {
  readonly runId: string;
  readonly receipts: readonly Receipt[];
  readonly integrity: { ok: true } | { ok: false; brokenAt: string; reason: string };
  readonly code?: string;
  readonly conversation?: string;
  /** The conversation turn the run served, when recorded. */
  readonly turn?: RunTurn;
  readonly approvals: (callId: string) => ApprovalRecord | undefined;
  /** Scrubs known secrets (receipts are redacted when written; this catches secrets configured since). */
  readonly redact: (text: string) => string;
  readonly viewer?: Viewer;
  /** The call a receipt link names: its page of calls is shown. */
  readonly focusCall?: string;
  /** Page of calls (1-based) when no call is named. */
  readonly page?: number;
  /** The receipt link's token, kept in links to other pages of the same run. */
  readonly linkToken?: string;
}

/** Text as shown: secrets redacted, invisible and bidi characters escaped (then HTML-escaped by `html`). */
const shown = (redact: (t: string) => string, text: string) => escapeInvisible(redact(text));

function summaryLine(i: ActivityItem, redact: (t: string) => string, href: string): SafeHtml {
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
  return html`<li>${statusBadge(i.status)} <a href="${href}"><code>${i.toolId}</code></a> ${shown(redact, what)}
    <span class="muted">[${i.receiptRef}]</span></li>`;
}

/** `HH:MM:SS.mmm` (UTC): the run's date is in the header; a step only needs its time. */
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 23);

// Compact markup on purpose: a run can have thousands of calls (bench/console.bench.ts).
function callSection(d: RunPageData, callId: string, receipts: readonly Receipt[]): SafeHtml {
  const first = receipts[0]!;
  const last = receipts.at(-1)!;
  const input = [...receipts].reverse().find((r) => r.inputPreview !== undefined)?.inputPreview;
  const result = last.outputPreview ?? last.error;
  const steps = callTimeline(receipts, first.policy === "required" ? d.approvals(callId) : undefined);
  return html`<section class="call" id="call-${callId}"><h3><code>tools.${first.toolPath}</code> ${statusBadge(
    phaseStatus(last.phase),
  )} <small>${callId} · policy ${last.policy}</small></h3><ol class="timeline">${steps.map(
    (s) =>
      html`<li${s.derived ? raw(' class="derived"') : ""}>${clock(s.at)} <strong>${shown(d.redact, s.label)}</strong>${
        s.detail ? html` — ${shown(d.redact, s.detail)}` : ""
      } <i>${s.derived ? "implied by " : ""}${s.receipt.id}</i></li>`,
  )}</ol>${input !== undefined ? html`<pre class="input" title="Input">${shown(d.redact, input)}</pre>` : ""}${
    result !== undefined
      ? html`<pre class="result${last.error !== undefined ? " error" : ""}" title="${last.error !== undefined ? "Error" : "Result"}">${shown(d.redact, result)}</pre>`
      : ""
  }</section>`;
}

/** The answer's grounding flag, as the user was shown it. */
function groundingFlag(t: RunTurn): SafeHtml {
  if (t.unverified === undefined) return html`<span class="flag running">turn still running</span>`;
  return t.unverified
    ? html`<span class="flag unverified">⚠ unverified: the answer claims an action no successful call of the turn backs</span>`
    : html`<span class="flag grounded">✓ grounded: no claimed action lacks a successful call</span>`;
}

/** The conversation turn the run served: who asked what, which model answered, and the answer. */
function turnSection(t: RunTurn | undefined, redact: (t: string) => string): SafeHtml {
  if (!t) return html`<p class="muted" id="turn">The turn this run served was not recorded.</p>`;
  const ended = t.finishedAt !== undefined ? ` · took ${formatDuration(t.finishedAt - t.startedAt)}` : "";
  return html`<section class="turn" id="turn">
    <p class="turn-meta">Asked by ${t.userId ? html`<code class="asked-by">${shown(redact, t.userId)}</code>` : "an unknown user"} at ${formatTime(
      t.startedAt,
    )}${ended} · model <code class="model">${t.model ?? "not recorded"}</code>${
      t.stopReason && t.stopReason !== "answered" ? html` · stopped: <code>${t.stopReason}</code>` : ""
    }</p>
    <div class="bubble user"><div class="who">User</div><pre class="request">${
      t.request !== undefined ? shown(redact, t.request) : "(not recorded: the turn predates it)"
    }</pre></div>
    <div class="bubble assistant"><div class="who">Assistant ${groundingFlag(t)}</div>${
      t.answer !== undefined
        ? html`<pre class="answer">${shown(redact, t.answer)}</pre>`
        : html`<p class="muted">No answer yet.</p>`
    }</div>
  </section>`;
}

/** Calls shown with their full timeline per page; the rest of a large run is a link away. */
export const CALLS_PER_PAGE = 100;

/** One run: the code, the activity summary, each call's receipt timeline, and the chain check. */
export function runPage(d: RunPageData): SafeHtml {
  const byCall = new Map<string, Receipt[]>();
  for (const r of d.receipts) {
    const list = byCall.get(r.callId);
    if (list) list.push(r);
    else byCall.set(r.callId, [r]);
  }
  const callIds = [...byCall.keys()];
  const pages = Math.max(1, Math.ceil(callIds.length / CALLS_PER_PAGE));
  const focusIndex = d.focusCall ? callIds.indexOf(d.focusCall) : -1;
  const page = Math.min(
    pages,
    Math.max(1, focusIndex >= 0 ? Math.floor(focusIndex / CALLS_PER_PAGE) + 1 : (d.page ?? 1)),
  );
  const pageOf = (callId: string) => Math.floor(callIds.indexOf(callId) / CALLS_PER_PAGE) + 1;
  // Links within the page keep the receipt link's token (a read-only viewer has no session).
  const href = (p: number, callId?: string) =>
    p === page && callId
      ? `#call-${callId}`
      : `?${d.linkToken ? `t=${encodeURIComponent(d.linkToken)}&` : ""}page=${p}${callId ? `#call-${callId}` : ""}`;
  const summary = summarizeRun(d.receipts);
  const integrity = d.integrity.ok
    ? html`<span class="integrity ok">✔ hash chain verified (HMAC, from this run's first receipt through the one after its last)</span>`
    : html`<span class="integrity broken">✘ hash chain broken at ${d.integrity.brokenAt}: ${d.integrity.reason}</span>`;
  const shownIds = callIds.slice((page - 1) * CALLS_PER_PAGE, page * CALLS_PER_PAGE);
  const calls = shownIds.map((callId) => callSection(d, callId, byCall.get(callId)!));
  const pager =
    pages > 1
      ? html`<p class="pager">Calls ${(page - 1) * CALLS_PER_PAGE + 1}–${(page - 1) * CALLS_PER_PAGE + shownIds.length} of ${
          callIds.length
        }: ${Array.from({ length: pages }, (_, i) =>
          i + 1 === page ? html`<strong>${i + 1}</strong> ` : html`<a href="${href(i + 1)}">${i + 1}</a> `,
        )}</p>`
      : "";
  const first = d.receipts[0];
  const last = d.receipts.at(-1);
  // #35: the model that wrote the code, as the receipts record it (runs from before #35 do not).
  const models = [...new Set(d.receipts.flatMap((r) => (r.model ? [r.model] : [])))];
  const title = d.turn?.request !== undefined ? firstWords(d.redact(d.turn.request), 100) : undefined;
  const body = html`<h1>${title ? html`${title} <small class="muted">run <code>${d.runId}</code></small>` : html`Run <code>${d.runId}</code>`}</h1>
    <dl class="meta">
      <dt>Conversation</dt><dd>${d.conversation ? html`<code>${d.conversation}</code>` : "unknown"}</dd>
      <dt>Started</dt><dd>${formatTime(first?.at)}</dd>
      <dt>Duration</dt><dd>${first && last ? formatDuration(last.at - first.at) : ""}</dd>
      <dt>Calls</dt><dd>${byCall.size}</dd>
      ${models.length ? html`<dt>Model</dt><dd id="model">${models.map((m) => html`<code>${m}</code> `)}</dd>` : ""}
      <dt>Integrity</dt><dd id="integrity">${integrity}</dd>
      ${
        d.receipts.some((r) => r.reason === RESUMED)
          ? html`<dt>Resumed</dt><dd id="resumed">after a restart: the calls made before it were answered from the record, the approvals it waited for were asked again under the same call ids</dd>`
          : ""
      }
    </dl>
    <h2>The turn</h2>
    ${turnSection(d.turn, d.redact)}
    <h2>Code the model wrote</h2>
    ${d.code !== undefined ? html`<pre class="code">${shown(d.redact, d.code)}</pre>` : html`<p class="muted">Not recorded (the run predates the console).</p>`}
    <h2>Relevant activity</h2>
    <ul class="summary">${summary.items.map((i) => summaryLine(i, d.redact, href(pageOf(i.callId), i.callId)))}</ul>
    ${summary.omittedReads ? html`<p class="muted">+${summary.omittedReads} successful reads not shown (in the calls below)</p>` : ""}
    <h2>Calls</h2>
    ${pager}<div id="calls">${calls}</div>${pager}`;
  return layout({ title: `Run ${d.runId}`, ...d.viewer, active: "runs" }, body);
}

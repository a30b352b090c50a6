import { cutText, ELLIPSIS, escapeInvisible } from "@openassistant/core/text";
import { html, type SafeHtml } from "../html.ts";

/** Who is looking at a signed-in page, and what the header shows them. */
export interface Viewer {
  readonly operator: string;
  /** Approvals waiting for a decision (the header's count). */
  readonly pending: number;
}

export interface LayoutOptions {
  readonly title: string;
  /** The signed-in operator; absent for a read-only receipt link (no navigation, no live updates). */
  readonly operator?: string;
  readonly active?: "overview" | "runs" | "pending" | "approvals" | "rules" | "tools" | "schedules" | "abilities";
  /** Approvals waiting for a decision, shown in the header of every signed-in page. */
  readonly pending?: number;
}

/**
 * The page frame: navigation with the pending-approvals count, styles, and for a signed-in operator
 * htmx and the live-update script (`[data-live]` regions and the count follow the console's SSE events).
 */
export function layout(o: LayoutOptions, body: SafeHtml): SafeHtml {
  const nav = o.operator
    ? html`<nav>
        <strong>OpenAssistant console</strong>
        <a href="/console/overview" class="${o.active === "overview" ? "on" : ""}">Overview</a>
        <a href="/console/runs" class="${o.active === "runs" ? "on" : ""}">Runs</a>
        <a href="/console/pending" class="${o.active === "pending" ? "on" : ""}">Pending runs</a>
        <a href="/console/approvals" class="${o.active === "approvals" ? "on" : ""}">Approvals${pendingBadge(o.pending)}</a>
        <a href="/console/rules" class="${o.active === "rules" ? "on" : ""}">Rules</a>
        <a href="/console/tools" class="${o.active === "tools" ? "on" : ""}">Tools</a>
        <a href="/console/schedules" class="${o.active === "schedules" ? "on" : ""}">Schedules</a>
        <a href="/console/abilities" class="${o.active === "abilities" ? "on" : ""}">Abilities</a>
        <span class="who">signed in as <code>${o.operator}</code></span>
      </nav>`
    : html`<nav><strong>OpenAssistant console</strong><span class="who">read-only receipt link</span></nav>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<meta name="htmx-config" content='{"includeIndicatorStyles":false}'>
<title>${o.title} · OpenAssistant</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/static/console.css">
${
  o.operator
    ? html`<script src="/console/static/htmx.min.js" defer></script>
<script src="/console/static/live.js" defer></script>`
    : ""
}
</head>
<body>
${nav}
<main>${body}</main>
</body>
</html>`;
}

/** The header's count of approvals waiting (also read by live.js to update it). */
function pendingBadge(pending: number | undefined): SafeHtml | string {
  if (pending === undefined) return "";
  return html` <span id="pending-count" class="badge${pending ? " waiting" : ""}" title="${pending} waiting for a decision" aria-label="${pending} waiting for a decision">${pending}</span>`;
}

/** "420 ms", "3.4 s", "2 min 05 s". */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return "";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
}

/** The first words of a text, on one line, invisible characters escaped (then HTML-escaped by the html template). */
export function firstWords(text: string, max = 80): string {
  return escapeInvisible(cutText(text.replace(/\s+/g, " ").trim(), max, { marker: ELLIPSIS }));
}

export function formatTime(ms: number | undefined): string {
  if (ms === undefined) return "";
  return new Date(ms)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, "Z");
}

// Plain symbols: they render with any font (no emoji font needed).
const STATUS_ICON = { succeeded: "✓", failed: "✗", denied: "⊘", pending: "…" } as const;

export function statusBadge(status: keyof typeof STATUS_ICON): SafeHtml {
  return html`<span class="status ${status}">${STATUS_ICON[status]} ${status}</span>`;
}

/** A message page (refusals, not found). */
export function messagePage(title: string, text: string, viewer?: Viewer): SafeHtml {
  return layout({ title, ...viewer }, html`<h1>${title}</h1><p class="notice">${text}</p>`);
}

/** After a login link: moves on to the runs (a same-site navigation, so the new cookie goes along). */
export function signedInPage(operator: string): SafeHtml {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=/console/runs">
<title>Signed in · OpenAssistant</title><link rel="stylesheet" href="/console/static/console.css"></head>
<body><main><h1>Signed in</h1><p>Signed in as <code>${operator}</code>. <a href="/console/runs">Open the console</a>.</p></main></body></html>`;
}

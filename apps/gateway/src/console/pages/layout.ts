import { html, type SafeHtml } from "../html.ts";

export interface LayoutOptions {
  readonly title: string;
  /** The signed-in operator; absent for a read-only receipt link (no navigation, no live updates). */
  readonly operator?: string;
  readonly active?: "runs" | "approvals" | "tools";
  /** Loads htmx and the live-update script: `[data-live]` regions reload on the console's SSE events. */
  readonly live?: boolean;
}

/** The page frame: navigation, styles, htmx and the live-update script. */
export function layout(o: LayoutOptions, body: SafeHtml): SafeHtml {
  const nav = o.operator
    ? html`<nav>
        <strong>OpenAssistant console</strong>
        <a href="/console/runs" class="${o.active === "runs" ? "on" : ""}">Runs</a>
        <a href="/console/approvals" class="${o.active === "approvals" ? "on" : ""}">Approvals</a>
        <a href="/console/tools" class="${o.active === "tools" ? "on" : ""}">Tools</a>
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
  o.live && o.operator
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
export function messagePage(title: string, text: string, operator?: string): SafeHtml {
  return layout({ title, ...(operator ? { operator } : {}) }, html`<h1>${title}</h1><p class="notice">${text}</p>`);
}

/** After a login link: moves on to the runs (a same-site navigation, so the new cookie goes along). */
export function signedInPage(operator: string): SafeHtml {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=/console/runs">
<title>Signed in · OpenAssistant</title><link rel="stylesheet" href="/console/static/console.css"></head>
<body><main><h1>Signed in</h1><p>Signed in as <code>${operator}</code>. <a href="/console/runs">Open the console</a>.</p></main></body></html>`;
}

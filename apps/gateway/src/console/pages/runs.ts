import { html, type SafeHtml } from "../html.ts";
import { RUN_STATUSES, type Conversation, type RunRow } from "@openassistant/core/receipts";
import { firstWords, formatDuration, formatTime, layout, statusBadge, type Viewer } from "./layout.ts";

export interface RunsQuery {
  readonly session?: string;
  readonly tool?: string;
  readonly status?: string;
  readonly since?: string;
  readonly until?: string;
  readonly q?: string;
}

/** The query string of a filter: the whole state of the runs page (shareable, back button). */
export const runsQueryString = (q: RunsQuery) =>
  new URLSearchParams(
    Object.entries(q).filter((e): e is [string, string] => typeof e[1] === "string" && e[1] !== ""),
  ).toString();

function requestCell(r: RunRow): SafeHtml {
  const href = `/console/runs/${encodeURIComponent(r.runId)}`;
  const words = r.turn?.request !== undefined ? firstWords(r.turn.request) : undefined;
  return words
    ? html`<a class="request" href="${href}">${words}</a><br><code class="muted">${r.runId}</code>`
    : html`<a href="${href}"><code>${r.runId}</code></a>`;
}

/** The table of runs alone: htmx reloads it on live events. */
export function runsTable(rows: readonly RunRow[]): SafeHtml {
  if (rows.length === 0) return html`<p class="muted" id="no-runs">No runs match.</p>`;
  return html`<table id="runs-table">
    <thead><tr><th>Request</th><th>Status</th><th>Asked by</th><th>Conversation</th><th>Tools</th><th>Calls</th><th>Duration</th><th>Last activity</th></tr></thead>
    <tbody>${rows.map(
      (r) => html`<tr data-run="${r.runId}">
        <td>${requestCell(r)}</td>
        <td>${statusBadge(r.status)}</td>
        <td class="asked-by">${r.turn?.userId ? html`<code>${r.turn.userId}</code>` : html`<span class="muted">—</span>`}</td>
        <td>${r.conversation ? html`<code>${r.conversation}</code>` : html`<span class="muted">${r.sessionId ?? "—"}</span>`}</td>
        <td>${r.tools.map((t, i) => html`${i ? ", " : ""}<code>${t}</code>`)}</td>
        <td>${r.calls}</td>
        <td class="duration">${formatDuration(r.last - r.started)}</td>
        <td>${formatTime(r.last)}</td>
      </tr>`,
    )}</tbody></table>`;
}

/**
 * Runs with filters (conversation, tool, status, time) and search. The filters are a plain GET
 * form: each change is a navigation to `/console/runs?…`, so the URL holds the whole state (a link
 * shares it, the back button restores it); live.js submits the form when a select changes.
 */
export function runsPage(
  viewer: Viewer,
  query: RunsQuery,
  conversations: readonly Conversation[],
  rows: readonly RunRow[],
): SafeHtml {
  const opt = (value: string, label: string, selected: string | undefined) =>
    html`<option value="${value}" ${value === (selected ?? "") ? "selected" : ""}>${label}</option>`;
  const params = runsQueryString(query);
  const body = html`<h1>Runs</h1>
    <form class="filters" method="get" action="/console/runs" data-autosubmit autocomplete="off">
      <label>Search <input type="search" name="q" value="${query.q ?? ""}" placeholder="id, tool, input, error, code"></label>
      <label>Conversation <select name="session">${opt("", "any", query.session)}${conversations.map((c) =>
        opt(c.id, `${c.key} (${c.surface})`, query.session),
      )}</select></label>
      <label>Tool <input name="tool" value="${query.tool ?? ""}" placeholder="calendar.* or reminders.create"></label>
      <label>Status <select name="status">${opt("", "any", query.status)}${RUN_STATUSES.map((s) =>
        opt(s, s, query.status),
      )}</select></label>
      <label>Since (UTC) <input type="datetime-local" name="since" value="${query.since ?? ""}"></label>
      <label>Until (UTC) <input type="datetime-local" name="until" value="${query.until ?? ""}"></label>
      <button type="submit">Filter</button>
      ${params ? html`<a href="/console/runs">clear</a>` : ""}
    </form>
    <div id="runs" data-live hx-get="/console/runs/table${params ? `?${params}` : ""}" hx-trigger="oa:refresh">
      ${runsTable(rows)}
    </div>`;
  return layout({ title: "Runs", ...viewer, active: "runs" }, body);
}

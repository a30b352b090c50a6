import { html, type SafeHtml } from "../html.ts";
import { RUN_STATUSES, type Conversation, type RunRow } from "@openassistant/core/receipts";
import { formatTime, layout, statusBadge } from "./layout.ts";

export interface RunsQuery {
  readonly session?: string;
  readonly tool?: string;
  readonly status?: string;
  readonly since?: string;
  readonly until?: string;
  readonly q?: string;
}

const qs = (q: RunsQuery) =>
  new URLSearchParams(Object.entries(q).filter((e): e is [string, string] => typeof e[1] === "string" && e[1] !== ""));

/** The table of runs alone: htmx reloads it on live events and when a filter changes. */
export function runsTable(rows: readonly RunRow[]): SafeHtml {
  if (rows.length === 0) return html`<p class="muted" id="no-runs">No runs match.</p>`;
  return html`<table id="runs-table">
    <thead><tr><th>Run</th><th>Status</th><th>Conversation</th><th>Tools</th><th>Calls</th><th>Last activity</th></tr></thead>
    <tbody>${rows.map(
      (r) => html`<tr data-run="${r.runId}">
        <td><a href="/console/runs/${encodeURIComponent(r.runId)}"><code>${r.runId}</code></a></td>
        <td>${statusBadge(r.status)}</td>
        <td>${r.conversation ? html`<code>${r.conversation}</code>` : html`<span class="muted">${r.sessionId ?? "—"}</span>`}</td>
        <td>${r.tools.map((t, i) => html`${i ? ", " : ""}<code>${t}</code>`)}</td>
        <td>${r.calls}</td>
        <td>${formatTime(r.last)}</td>
      </tr>`,
    )}</tbody></table>`;
}

/** Runs with filters (conversation, tool, status, time), search, and live updates. */
export function runsPage(
  operator: string,
  query: RunsQuery,
  conversations: readonly Conversation[],
  rows: readonly RunRow[],
): SafeHtml {
  const opt = (value: string, label: string, selected: string | undefined) =>
    html`<option value="${value}" ${value === (selected ?? "") ? "selected" : ""}>${label}</option>`;
  const params = qs(query).toString();
  const body = html`<h1>Runs</h1>
    <form class="filters" method="get" action="/console/runs"
      hx-get="/console/runs/table" hx-target="#runs" hx-trigger="change, submit" hx-push-url="false">
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
    </form>
    <div id="runs" data-live hx-get="/console/runs/table${params ? `?${params}` : ""}" hx-trigger="oa:refresh">
      ${runsTable(rows)}
    </div>`;
  return layout({ title: "Runs", operator, active: "runs", live: true }, body);
}

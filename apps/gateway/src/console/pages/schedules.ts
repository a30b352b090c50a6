import { escapeInvisible } from "@openassistant/core/text";
import { describeTarget } from "../../schedules/receipts.ts";
import type { ScheduleView } from "../../schedules/service.ts";
import type { Occurrence } from "../../schedules/types.ts";
import { describeWhen, formatInZone } from "../../schedules/when.ts";
import { html, type SafeHtml } from "../html.ts";
import { layout, type Viewer } from "./layout.ts";

function outcome(status: string | undefined): SafeHtml {
  if (!status) return html`<span class="muted">none yet</span>`;
  const css =
    status === "succeeded" ? "succeeded" : status === "failed" ? "failed" : status === "skipped" ? "denied" : "pending";
  return html`<span class="status ${css}">${status}</span>`;
}

/** Every schedule: when, zone, what runs, its state, next fire time and last outcome; each links to its history. */
export function schedulesPage(viewer: Viewer, schedules: readonly ScheduleView[]): SafeHtml {
  const rows = schedules.map(
    (s) => html`<tr data-schedule="${s.id}">
      <td><a href="/console/schedules/${encodeURIComponent(s.id)}"><code>${s.id}</code></a></td>
      <td>${escapeInvisible(s.name)}</td>
      <td><code>${escapeInvisible(describeWhen(s.when))}</code></td>
      <td>${s.timeZone}</td>
      <td>${escapeInvisible(describeTarget(s))}</td>
      <td>${s.paused ? html`<span class="muted">paused</span>` : "active"}</td>
      <td class="next">${s.next[0] !== undefined ? formatInZone(s.next[0], s.timeZone) : html`<span class="muted">none</span>`}</td>
      <td class="last">${outcome(s.lastOutcome)}${s.lastAt !== undefined ? html` <span class="muted">${formatInZone(s.lastAt, s.timeZone)}</span>` : ""}</td>
    </tr>`,
  );
  const body = html`<h1>Schedules</h1>
    <p class="muted">Created by the config (<code>schedules</code>), <code>openassistant schedules add</code>, or the model (<code>tools.schedules.create</code>, approved by a person). Each occurrence runs once across gateways.</p>
    ${
      rows.length
        ? html`<table id="schedules-table"><thead><tr><th>Schedule</th><th>Name</th><th>When</th><th>Time zone</th><th>Runs</th><th>State</th><th>Next fire time</th><th>Last outcome</th></tr></thead><tbody>${rows}</tbody></table>`
        : html`<p class="muted" id="no-schedules">No schedules yet.</p>`
    }`;
  return layout({ title: "Schedules", ...viewer, active: "schedules" }, body);
}

/** One schedule's history: each occurrence, newest first, with its outcome, the run its receipts carry and why. */
export function scheduleHistoryPage(viewer: Viewer, s: ScheduleView, history: readonly Occurrence[]): SafeHtml {
  const rows = history.map(
    (o) => html`<tr data-at="${String(o.at)}">
      <td>${formatInZone(o.at, s.timeZone)}</td>
      <td>${outcome(o.status)}</td>
      <td><code>${o.runId}</code></td>
      <td>${o.turnId ? html`<code>${o.turnId}</code>` : ""}</td>
      <td>${o.detail ? escapeInvisible(o.detail) : ""}</td>
      <td><code>${escapeInvisible(o.claimedBy)}</code></td>
    </tr>`,
  );
  const body = html`<h1>Schedule ${escapeInvisible(s.name)}</h1>
    <p><code>${s.id}</code> · <code>${escapeInvisible(describeWhen(s.when))}</code> in ${s.timeZone} · ${escapeInvisible(describeTarget(s))} · tools: ${s.ceiling ? s.ceiling.join(", ") || "none" : "any"} · missed: ${s.missed} · created by <code>${escapeInvisible(s.createdBy)}</code></p>
    <p>Next fire times: ${s.next.length ? s.next.map((t) => formatInZone(t, s.timeZone)).join("; ") : "none"}</p>
    ${
      rows.length
        ? html`<table id="history-table"><thead><tr><th>Occurrence</th><th>Outcome</th><th>Receipts' run</th><th>Turn / ability run</th><th>Why</th><th>Gateway</th></tr></thead><tbody>${rows}</tbody></table>`
        : html`<p class="muted" id="no-history">No occurrence yet.</p>`
    }`;
  return layout({ title: `Schedule ${s.name}`, ...viewer, active: "schedules" }, body);
}

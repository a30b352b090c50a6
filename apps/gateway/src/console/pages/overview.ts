import { escapeInvisible } from "@openassistant/core/text";
import { html, type SafeHtml } from "../html.ts";
import { OUTCOMES, PERIODS, type Overview, type Period } from "@openassistant/core/receipts";
import { chartTable, horizontalBars, stackedBars } from "./charts.ts";
import { formatDuration, formatTime, layout, type Viewer } from "./layout.ts";

const OUTCOME_LABELS = { succeeded: "succeeded", failed: "failed", denied: "denied" } as const;

/** `05:00` for hourly bars, `11-26` for daily ones (UTC). */
function barLabel(start: number, bucketMs: number): string {
  const iso = new Date(start).toISOString();
  return bucketMs >= 24 * 3_600_000 ? iso.slice(5, 10) : iso.slice(11, 16);
}

function callsChart(o: Overview): SafeHtml {
  const unit = o.bucketMs >= 24 * 3_600_000 ? "day" : "hour";
  const all = OUTCOMES.reduce((n, k) => n + o.totals[k], 0);
  const chart = stackedBars({
    id: "calls-chart",
    title: `Calls per ${unit} by outcome, ${PERIODS[o.period].label}`,
    desc: `${all} calls: ${OUTCOMES.map((k) => `${o.totals[k]} ${k}`).join(", ")}.`,
    series: OUTCOMES.map((k) => ({ key: k, label: OUTCOME_LABELS[k] })),
    bars: o.buckets.map((b) => ({
      label: barLabel(b.start, o.bucketMs),
      title: formatTime(b.start),
      values: { succeeded: b.succeeded, failed: b.failed, denied: b.denied },
    })),
  });
  const rows = o.buckets
    .filter((b) => b.succeeded + b.failed + b.denied > 0)
    .map((b) => [formatTime(b.start), b.succeeded, b.failed, b.denied]);
  return html`${chart}${chartTable("calls-table", `Calls per ${unit}`, [`${unit} from (UTC)`, ...OUTCOMES], rows)}`;
}

function waitsChart(o: Overview): SafeHtml {
  const chart = horizontalBars({
    id: "waits-chart",
    kind: "wait",
    title: "Approval wait per approver: median (dark) and 95th percentile (light)",
    desc: "Time from a call's request to its approver's decision.",
    rows: o.waits.map((w) => ({
      label: w.approver,
      value: w.medianMs,
      behind: w.p95Ms,
      text: `median ${formatDuration(w.medianMs)} · p95 ${formatDuration(w.p95Ms)} (${w.decisions})`,
    })),
  });
  const rows = o.waits.map((w) => [
    html`<code>${escapeInvisible(w.approver)}</code>`,
    w.decisions,
    formatDuration(w.medianMs),
    formatDuration(w.p95Ms),
  ]);
  return html`${chart}${chartTable("waits-table", "Approval waits", ["approver", "decisions", "median", "p95"], rows)}`;
}

function slowChart(o: Overview): SafeHtml {
  const chart = horizontalBars({
    id: "slow-chart",
    kind: "slow",
    title: "Slowest tools by mean run time",
    desc: "Mean run time of the calls that ran; the longest one after it.",
    rows: o.slowest.map((t) => ({
      label: t.tool,
      value: t.avgMs ?? 0,
      text: `mean ${formatDuration(t.avgMs)} · max ${formatDuration(t.maxMs)}`,
    })),
  });
  const rows = o.slowest.map((t) => [
    html`<code>${t.tool}</code>`,
    t.calls,
    formatDuration(t.avgMs),
    formatDuration(t.maxMs),
  ]);
  return html`${chart}${chartTable("slow-table", "Slowest tools", ["tool", "calls", "mean", "max"], rows)}`;
}

function failingChart(o: Overview): SafeHtml {
  const pct = (n: number, of: number) => `${Math.round((n / of) * 100)}%`;
  const chart = horizontalBars({
    id: "failing-chart",
    kind: "failing",
    title: "Tools that fail most",
    desc: "Failed calls per tool, with the share of its calls that failed.",
    rows: o.failing.map((t) => ({
      label: t.tool,
      value: t.failed,
      text: `${t.failed} of ${t.calls} failed (${pct(t.failed, t.calls)})`,
    })),
  });
  const rows = o.failing.map((t) => [html`<code>${t.tool}</code>`, t.calls, t.failed, pct(t.failed, t.calls)]);
  return html`${chart}${chartTable("failing-table", "Failing tools", ["tool", "calls", "failed", "share"], rows)}`;
}

function deniedList(o: Overview, redact: (t: string) => string): SafeHtml {
  if (o.denied.length === 0) return html`<p class="muted" id="denied-table">No call was denied in this period.</p>`;
  const shown = (t: string) => escapeInvisible(redact(t));
  return html`<table id="denied-table">
    <thead><tr><th>When</th><th>Tool</th><th>Denied by</th><th>Reason</th><th>Run</th></tr></thead>
    <tbody>${o.denied.map(
      (d) => html`<tr>
        <td>${formatTime(d.at)}</td><td><code>${d.tool}</code></td>
        <td>${d.by ? html`<code>${shown(d.by)}</code>` : "—"}</td><td>${d.reason ? shown(d.reason) : ""}</td>
        <td><a href="/console/runs/${encodeURIComponent(d.runId)}#call-${encodeURIComponent(d.callId)}"><code>${d.runId}</code></a></td>
      </tr>`,
    )}</tbody></table>`;
}

/** The overview: what happened over a period, as charts with their tables, from the receipts. */
export function overviewPage(viewer: Viewer, o: Overview, redact: (t: string) => string): SafeHtml {
  const periodLinks = (Object.keys(PERIODS) as Period[]).map((p) =>
    p === o.period
      ? html`<strong aria-current="page">${PERIODS[p].label}</strong>`
      : html`<a href="/console/overview?period=${p}">${PERIODS[p].label}</a>`,
  );
  const total = OUTCOMES.reduce((n, k) => n + o.totals[k], 0);
  const body = html`<h1>Overview</h1>
    <p class="periods" id="periods">${periodLinks.map((l, i) => html`${i ? " · " : ""}${l}`)}</p>
    <p class="muted">From ${formatTime(o.from)} to ${formatTime(o.to)} (UTC), from the receipts.</p>
    <ul class="tiles" id="totals">
      <li><span class="n" data-total="all">${total}</span> calls</li>
      ${OUTCOMES.map((k) => html`<li class="${k}"><span class="n" data-total="${k}">${o.totals[k]}</span> ${k}</li>`)}
    </ul>
    <h2>Calls by outcome</h2>${callsChart(o)}
    <h2>Approval wait times</h2>${waitsChart(o)}
    <h2>Slowest tools</h2>${slowChart(o)}
    <h2>Most failing tools</h2>${failingChart(o)}
    <h2>Denied calls <small class="muted">(latest ${o.denied.length} of ${o.totals.denied})</small></h2>${deniedList(o, redact)}`;
  return layout({ title: "Overview", ...viewer, active: "overview" }, body);
}

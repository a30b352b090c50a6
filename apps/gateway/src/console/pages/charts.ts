import { cutText, ELLIPSIS, escapeInvisible } from "@openassistant/core/text";
import { html, type SafeHtml } from "../html.ts";

/**
 * Small server-rendered SVG charts: no script, no library, no request. Each is a `role="img"`
 * figure with a <title> and <desc>, a <title> on every bar (hover and screen readers), and a
 * table of the same numbers under it. Every label goes through `html` (tool names are hostile).
 */

export interface Series {
  readonly key: string;
  readonly label: string;
}

export interface StackedBar {
  /** Shown under the bar (only some bars are labelled when there are many). */
  readonly label: string;
  /** Full description for the bar's tooltip. */
  readonly title: string;
  readonly values: Readonly<Record<string, number>>;
}

const W = 880;
const LEFT = 44;
const BOTTOM = 22;
const TOP = 10;

/** A "nice" axis maximum at or above `max` (1, 2, 5 × 10ⁿ). */
export function niceMax(max: number): number {
  if (max <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  return ([1, 2, 5, 10].find((m) => m * p >= max) ?? 10) * p;
}

/** Bars over time, each stacked by series (calls per hour by outcome). */
export function stackedBars(o: {
  readonly id: string;
  readonly title: string;
  readonly desc: string;
  readonly series: readonly Series[];
  readonly bars: readonly StackedBar[];
  readonly height?: number;
}): SafeHtml {
  const h = o.height ?? 200;
  const plotW = W - LEFT - 8;
  const plotH = h - TOP - BOTTOM;
  const totals = o.bars.map((b) => o.series.reduce((n, s) => n + (b.values[s.key] ?? 0), 0));
  const top = niceMax(Math.max(0, ...totals));
  const step = plotW / Math.max(1, o.bars.length);
  const barW = Math.max(1, step * 0.8);
  const every = Math.max(1, Math.ceil(o.bars.length / 12));
  const y = (v: number) => TOP + plotH - (v / top) * plotH;
  const bars = o.bars.map((b, i) => {
    let base = 0;
    const x = LEFT + i * step + (step - barW) / 2;
    const parts = o.series.map((s) => {
      const v = b.values[s.key] ?? 0;
      if (!v) return "";
      const y0 = y(base + v);
      base += v;
      return html`<rect class="s-${s.key}" x="${x.toFixed(1)}" y="${y0.toFixed(1)}" width="${barW.toFixed(1)}" height="${(
        (v / top) * plotH
      ).toFixed(1)}"><title>${b.title}: ${v} ${s.label}</title></rect>`;
    });
    const tick =
      i % every === 0
        ? html`<text class="tick" x="${(x + barW / 2).toFixed(1)}" y="${h - 6}" text-anchor="middle">${b.label}</text>`
        : "";
    return html`<g data-bar="${i}">${parts}${tick}</g>`;
  });
  return html`<figure class="chart" id="${o.id}">
  <svg viewBox="0 0 ${W} ${h}" role="img" aria-labelledby="${o.id}-t ${o.id}-d" preserveAspectRatio="xMinYMin meet">
    <title id="${o.id}-t">${o.title}</title><desc id="${o.id}-d">${o.desc}</desc>
    ${gridLines(top, y, plotW)}
    ${bars}
  </svg>
  <figcaption class="legend">${o.series.map((s) => html`<span class="key s-${s.key}"></span>${s.label} `)}</figcaption>
</figure>`;
}

function gridLines(top: number, y: (v: number) => number, plotW: number): SafeHtml {
  return html`${[0, top / 2, top].map(
    (v) =>
      html`<line class="grid" x1="${LEFT}" x2="${LEFT + plotW}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}"></line><text class="tick" x="${
        LEFT - 6
      }" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${formatCount(v)}</text>`,
  )}`;
}

const formatCount = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(1));

export interface HBar {
  readonly label: string;
  /** The main value (the dark bar). */
  readonly value: number;
  /** A second value drawn as a lighter bar behind the first (p95 behind the median). */
  readonly behind?: number;
  /** Text after the bar. */
  readonly text: string;
}

/** Horizontal bars, one row per item (tools, approvers), labels on the left, values on the right. */
export function horizontalBars(o: {
  readonly id: string;
  readonly title: string;
  readonly desc: string;
  readonly rows: readonly HBar[];
  readonly kind: string;
}): SafeHtml {
  if (o.rows.length === 0) return html`<p class="muted" id="${o.id}">Nothing in this period.</p>`;
  const rowH = 26;
  const labelW = 230;
  const textW = 190;
  const plotW = W - labelW - textW;
  const h = o.rows.length * rowH + 6;
  const top = Math.max(...o.rows.map((r) => Math.max(r.value, r.behind ?? 0))) || 1;
  const width = (v: number) => Math.max(v > 0 ? 2 : 0, (v / top) * plotW);
  const rows = o.rows.map((row, i) => {
    const r = { ...row, label: escapeInvisible(row.label) };
    const y = i * rowH + 4;
    return html`<g class="row" data-label="${r.label}">
      <text class="label" x="${labelW - 8}" y="${y + 15}" text-anchor="end">${clip(r.label, 30)}<title>${r.label}</title></text>
      ${r.behind !== undefined ? html`<rect class="behind ${o.kind}" x="${labelW}" y="${y + 2}" width="${width(r.behind).toFixed(1)}" height="18"></rect>` : ""}
      <rect class="bar ${o.kind}" x="${labelW}" y="${y + (r.behind !== undefined ? 6 : 2)}" width="${width(r.value).toFixed(1)}" height="${
        r.behind !== undefined ? 10 : 18
      }"><title>${r.label}: ${r.text}</title></rect>
      <text class="value" x="${labelW + plotW + 8}" y="${y + 15}">${r.text}</text>
    </g>`;
  });
  return html`<figure class="chart" id="${o.id}">
  <svg viewBox="0 0 ${W} ${h}" role="img" aria-labelledby="${o.id}-t ${o.id}-d" preserveAspectRatio="xMinYMin meet">
    <title id="${o.id}-t">${o.title}</title><desc id="${o.id}-d">${o.desc}</desc>
    ${rows}
  </svg>
</figure>`;
}

/** Labels in a chart are cut to fit (the row's <title> and the table keep the whole name). */
const clip = (text: string, max: number) => cutText(text, max, { marker: ELLIPSIS });

/** The numbers under a chart as a table (collapsed): the accessible and copyable form. */
export function chartTable(
  id: string,
  caption: string,
  head: readonly string[],
  rows: readonly (readonly (string | number | SafeHtml)[])[],
): SafeHtml {
  return html`<details class="chart-table"><summary>${caption} as a table</summary><table id="${id}">
    <thead><tr>${head.map((c) => html`<th>${c}</th>`)}</tr></thead>
    <tbody>${rows.map((r) => html`<tr>${r.map((c) => html`<td>${c}</td>`)}</tr>`)}</tbody>
  </table></details>`;
}

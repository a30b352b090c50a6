import type { AbilityRun } from "@openassistant/core/abilities";
import type { Receipt } from "@openassistant/core/receipts";
import { escapeInvisible } from "@openassistant/core/text";
import { html, type SafeHtml } from "../html.ts";
import { formatTime, layout, type Viewer } from "./layout.ts";

/** An ability run's steps with the receipts of each step's code-mode run. */
export interface AbilityRunView {
  readonly run: AbilityRun;
  /** Each step's receipts (by step id), in append order. */
  readonly receipts: ReadonlyMap<string, readonly Receipt[]>;
}

function stepRows(view: AbilityRunView): SafeHtml[] {
  const { run } = view;
  return run.steps.map((s) => {
    const def = run.ability.steps.find((d) => d.id === s.id);
    const receipts = view.receipts.get(s.id) ?? [];
    const calls = receipts.map(
      (r) =>
        html`<li><code>tools.${escapeInvisible(r.toolPath)}</code> ${r.phase}${r.decidedBy ? html` by ${escapeInvisible(r.decidedBy)}` : ""} <span class="muted">${formatTime(r.at)}</span></li>`,
    );
    return html`<tr data-step="${s.id}">
      <td><code>${escapeInvisible(s.id)}</code></td>
      <td>${def?.type ?? ""}</td>
      <td class="status-${s.status}">${s.status}${s.error ? html`<div class="muted">${escapeInvisible(s.error)}</div>` : ""}</td>
      <td>${s.runId && def?.type !== "ability" ? html`<a href="/console/runs/${encodeURIComponent(s.runId)}"><code>${escapeInvisible(s.runId)}</code></a>` : ""}</td>
      <td><ul class="receipts">${calls}</ul></td>
    </tr>`;
  });
}

/** One ability run: its inputs' names, status, and each step with its run and receipts. */
export function abilityRunPage(viewer: Viewer, view: AbilityRunView): SafeHtml {
  const { run } = view;
  const body = html`<h1>Ability ${escapeInvisible(run.ability.name)} <code>${escapeInvisible(run.id)}</code></h1>
    <p id="ability-status">${run.status}${run.error ? html`: ${escapeInvisible(run.error)}` : ""} · started ${formatTime(run.startedAt)} · definition sha-256 <code>${run.ability.hash.slice(0, 12)}</code></p>
    <table id="ability-steps"><thead><tr><th>Step</th><th>Type</th><th>Status</th><th>Run</th><th>Receipts</th></tr></thead><tbody>${stepRows(view)}</tbody></table>`;
  return layout({ title: `Ability ${run.ability.name}`, ...viewer, active: "abilities" }, body);
}

/** The latest ability runs. */
export function abilityRunsPage(viewer: Viewer, runs: readonly AbilityRun[]): SafeHtml {
  const rows = runs.map(
    (r) => html`<tr data-ability-run="${r.id}">
      <td><a href="/console/abilities/${encodeURIComponent(r.id)}"><code>${escapeInvisible(r.id)}</code></a></td>
      <td>${escapeInvisible(r.ability.name)}</td>
      <td>${r.status}</td>
      <td>${escapeInvisible(r.currentStep ?? "")}</td>
      <td>${formatTime(r.startedAt)}</td>
    </tr>`,
  );
  const body = html`<h1>Abilities</h1>
    ${
      rows.length
        ? html`<table id="ability-runs"><thead><tr><th>Run</th><th>Ability</th><th>Status</th><th>Step</th><th>Started</th></tr></thead><tbody>${rows}</tbody></table>`
        : html`<p class="muted" id="no-ability-runs">No ability runs yet.</p>`
    }`;
  return layout({ title: "Abilities", ...viewer, active: "abilities" }, body);
}

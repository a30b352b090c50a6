import type { Diagnostic } from "@openassistant/core/config";
import type { LoadEntry } from "@openassistant/core/plugins";
import { html, type SafeHtml } from "../html.ts";
import { formatDiagnostic } from "../../diagnostics.ts";
import { layout, type Viewer } from "./layout.ts";

export interface ToolRow {
  readonly path: string;
  readonly description: string;
  /** The tool author's mode. */
  readonly approval: "auto" | "required";
  /** After operator policy rules. */
  readonly effective: "auto" | "required" | "deny";
}

/** Loaded tools with their approval modes, and the loader's diagnostics (what `plugins list` shows). */
export function toolsPage(
  viewer: Viewer,
  tools: readonly ToolRow[],
  diagnostics: readonly Diagnostic[],
  entries: readonly LoadEntry[] = [],
): SafeHtml {
  const body = html`<h1>Tools</h1>
    ${
      entries.length
        ? html`<h2>Tool files and plugins</h2><table id="entries-table"><thead><tr><th>Id</th><th>Kind</th><th>Status</th>
      <th>Origin</th><th>Source</th><th>Tools</th></tr></thead><tbody>${entries.map(
        (e) => html`<tr><td><code>${e.id}</code></td><td>${e.kind}</td><td>${e.stale ? "loaded (stale)" : e.status}</td>
          <td>${e.origin}</td><td><code>${e.source}</code></td><td>${e.tools.length}</td></tr>`,
      )}</tbody></table><h2>Tools</h2>`
        : ""
    }
    <p>${tools.length} tool${tools.length === 1 ? "" : "s"} available to the model.</p>
    <table id="tools-table"><thead><tr><th>Tool</th><th>Approval</th><th>Description</th></tr></thead>
    <tbody>${tools.map(
      (t) => html`<tr><td><code>tools.${t.path}</code></td>
        <td>${t.approval}${t.effective !== t.approval ? html` → <strong>${t.effective}</strong> by policy` : ""}</td>
        <td>${t.description.split("\n")[0]}</td></tr>`,
    )}</tbody></table>
    <h2>Diagnostics</h2>
    ${
      diagnostics.length
        ? html`<ul id="diagnostics">${diagnostics.map((d) => html`<li class="${d.level}"><pre>${formatDiagnostic(d)}</pre></li>`)}</ul>`
        : html`<p class="muted" id="diagnostics">No problems found while loading tools and plugins.</p>`
    }`;
  return layout({ title: "Tools", ...viewer, active: "tools" }, body);
}

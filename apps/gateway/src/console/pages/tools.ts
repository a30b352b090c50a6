import { html, type SafeHtml } from "../html.ts";
import { layout } from "./layout.ts";

export interface ToolRow {
  readonly path: string;
  readonly description: string;
  /** The tool author's mode. */
  readonly approval: "auto" | "required";
  /** After operator policy rules. */
  readonly effective: "auto" | "required" | "deny";
}

/** Loaded tools with their approval modes, and the loader's diagnostics (what `plugins list` shows). */
export function toolsPage(operator: string, tools: readonly ToolRow[], diagnostics: readonly string[]): SafeHtml {
  const body = html`<h1>Tools</h1>
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
        ? html`<ul id="diagnostics">${diagnostics.map((d) => html`<li><pre>${d}</pre></li>`)}</ul>`
        : html`<p class="muted" id="diagnostics">No problems found while loading tools and plugins.</p>`
    }`;
  return layout({ title: "Tools", operator, active: "tools" }, body);
}

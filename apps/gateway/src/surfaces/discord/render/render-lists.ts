import type { ApprovalRule } from "@openassistant/core/approvals";
import type { Receipt } from "@openassistant/core/receipts";
import { escapeInvisible } from "@openassistant/core/text";
import type { ToolReport } from "../../port.ts";
import { echo, fitText } from "./fit.ts";
import { renderOperator } from "../operator-id.ts";

export const RECEIPTS_PAGE_SIZE = 15;

const PHASE_ICON: Record<string, string> = {
  requested: "•",
  approved: "👍",
  denied: "⛔",
  started: "▶️",
  succeeded: "✅",
  failed: "❌",
};

function t(at: number, style = "T"): string {
  return `<t:${Math.floor(at / 1000)}:${style}>`;
}

export function renderTools(report: ToolReport, title = "Tools"): string {
  const lines = [`**${title}** (${report.tools.length} loaded)`];
  for (const tool of [...report.tools].sort((a, b) => a.path.localeCompare(b.path))) {
    const mode = tool.approval === "required" ? "🔒 required" : tool.approval === "deny" ? "🚫 deny" : "auto";
    lines.push(
      `\`${tool.path}\` · ${mode}${tool.description ? ` — ${fitText(tool.description.split("\n")[0]!, 100, "ellipsis")}` : ""}`,
    );
  }
  if (report.tools.length === 0)
    lines.push("No tools are loaded. Add `.ts` files to `.openassistant/tools/` and run `/reload`.");
  if (report.versions?.length) {
    lines.push("", "**Tool files the assistant wrote** (newest first)");
    for (const v of report.versions) {
      const who = v.approvedBy ? ` · approved by ${renderOperator(escapeInvisible(v.approvedBy))}` : "";
      const sha = v.sha256 ? ` \`${v.sha256.slice(0, 12)}\`` : "";
      const why = v.reason ? ` — ${fitText(escapeInvisible(v.reason).replace(/\s+/g, " "), 80)}` : "";
      lines.push(`\`${escapeInvisible(v.name)}\` ${v.action}${sha}${who} ${t(Date.parse(v.at))}${why}`);
    }
  }
  if (report.diagnostics.length > 0) {
    lines.push("", `**Problems** (${report.diagnostics.length})`);
    for (const d of report.diagnostics)
      lines.push(
        `${d.level === "warning" ? "⚠️" : "❌"} ${d.source ? `\`${d.source}\`: ` : ""}${fitText(d.message, 300, "ellipsis")}`,
      );
  } else {
    lines.push("", "No load problems.");
  }
  return lines.join("\n");
}

/** One page of receipts (newest first for the recent list, call order for a run's trail). */
export function renderReceipts(
  receipts: readonly Receipt[],
  opts: { page: number; runId?: string; hasMore: boolean },
): string {
  const header = opts.runId ? `**Receipts of run \`${opts.runId}\`**` : "**Recent receipts**";
  if (receipts.length === 0)
    return `${header}\n${opts.page > 1 ? `Page ${opts.page} is empty.` : opts.runId ? "No receipts for this run id." : "No receipts yet."}`;
  const lines = [`${header} · page ${opts.page}`];
  for (const r of receipts) {
    const by =
      r.decidedBy && (r.phase === "approved" || r.phase === "denied") ? ` by ${renderOperator(r.decidedBy)}` : "";
    // Reasons and errors can hold model text: invisible and bidi characters are shown escaped.
    const text = r.reason ?? r.error;
    const why = text ? `: ${fitText(escapeInvisible(text).replace(/\s+/g, " "), 80)}` : "";
    // #35: each call's first receipt says which model wrote the code.
    const writer = r.model && r.phase === "requested" ? ` (code by \`${echo(escapeInvisible(r.model), 128)}\`)` : "";
    lines.push(
      `${PHASE_ICON[r.phase] ?? "•"} \`${r.id}\` ${t(r.at)} \`${escapeInvisible(r.toolPath)}\` ${r.phase}${writer}${by}${why}${opts.runId ? "" : ` · \`${escapeInvisible(r.runId)}\``}`,
    );
  }
  if (opts.hasMore) lines.push(`-# More: \`/receipts${opts.runId ? ` run:${opts.runId}` : ""} page:${opts.page + 1}\``);
  return lines.join("\n");
}

export function renderRules(rules: readonly ApprovalRule[]): string {
  if (rules.length === 0) return 'No active "approve always" rules.';
  const lines = ['**Active "approve always" rules**'];
  for (const r of rules) {
    const scope = r.scope === "global" ? "everywhere" : `session \`${r.sessionId}\``;
    const exp = r.expiresAt ? `expires ${t(r.expiresAt, "R")}` : "no expiry";
    lines.push(`\`${r.id}\` \`${r.toolPath}\` · ${scope} · by ${renderOperator(r.createdBy)} · ${exp}`);
  }
  lines.push("-# Revoke with `/rules revoke id:<rule id>`");
  return lines.join("\n");
}

import type { ApprovalDecision, ApprovalRequest } from "@openassistant/core/approvals/types.ts";
import { cardButtonId } from "./custom-ids.ts";
import { renderOperator } from "./operator-id.ts";

/** Plain Discord API JSON (discord.js accepts it for send/edit), so rendering stays testable. */
export interface CardMessage {
  readonly content?: string;
  readonly embeds: Array<Record<string, unknown>>;
  readonly components: Array<Record<string, unknown>>;
}

export type CardState =
  | { readonly kind: "pending" }
  | { readonly kind: "decided"; readonly decision: ApprovalDecision; readonly at: number }
  | { readonly kind: "closed"; readonly reason: string; readonly at: number };

const COLOR = { pending: 0xf0b232, approved: 0x23a55a, denied: 0xda373c, closed: 0x80848e } as const;
const MAX_INPUT = 900;
const MAX_CODE = 900;
const MAX_DESCRIPTION = 600;

/** At most `max` UTF-16 units, ending in "…" when cut; never splits a surrogate pair. */
export function truncate(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = max - 1;
  const last = s.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // a high surrogate would be left without its pair
  return `${s.slice(0, end)}…`;
}

/**
 * A code block of at most `max` characters (Discord: 1024 per field value) whose user-controlled
 * body cannot close it early: a zero-width space goes between adjacent backticks. That adds
 * characters, so it runs before truncation.
 */
export function codeBlock(lang: string, body: string, max: number): string {
  const open = `\`\`\`${lang}\n`;
  const close = "\n```";
  const safe = body.replace(/`(?=`)/g, "`\u200b");
  return `${open}${truncate(safe, max - open.length - close.length)}${close}`;
}

function ts(at: number, style: "T" | "R" | "f" = "f"): string {
  return `<t:${Math.floor(at / 1000)}:${style}>`;
}

function outcomeLine(state: CardState): string | null {
  if (state.kind === "pending") return null;
  if (state.kind === "closed") return `🚫 Closed: ${state.reason} (${ts(state.at)})`;
  const d = state.decision;
  if (d.by === "timeout") return `⏳ Expired: nobody answered in time, so it was denied (${ts(state.at)})`;
  if (d.decision === "approved") {
    const always = d.always
      ? ` — **always** for this tool (${d.always.scope === "global" ? "everywhere" : "this conversation"}${d.always.ttlMs ? `, for ${formatDuration(d.always.ttlMs)}` : ""})`
      : "";
    return `✅ Approved by ${renderOperator(d.by)}${always} (${ts(state.at)})`;
  }
  return `⛔ Denied by ${renderOperator(d.by)}${d.reason ? `: "${truncate(d.reason.replace(/\s+/g, " "), 300)}"` : ""} (${ts(state.at)})`;
}

export function formatDuration(ms: number): string {
  const h = ms / 3_600_000;
  if (h >= 1 && Number.isInteger(h)) return `${h} h`;
  const m = Math.round(ms / 60_000);
  return m >= 1 ? `${m} min` : `${Math.round(ms / 1000)} s`;
}

function color(state: CardState): number {
  if (state.kind === "pending") return COLOR.pending;
  if (state.kind === "closed") return COLOR.closed;
  if (state.decision.by === "timeout") return COLOR.closed;
  return state.decision.decision === "approved" ? COLOR.approved : COLOR.denied;
}

/**
 * The approval card: tool path, description, input preview, the code that made the call, who
 * asked. Pending cards carry the four buttons; decided/closed cards show the outcome, no buttons.
 */
export function renderCard(req: ApprovalRequest, state: CardState): CardMessage {
  const fields: Array<{ name: string; value: string; inline?: boolean }> = [
    { name: "Input", value: codeBlock("json", req.inputPreview || "(none)", MAX_INPUT) },
  ];
  if (req.code) fields.push({ name: "Code", value: codeBlock("ts", req.code, MAX_CODE) });
  fields.push({ name: "Asked by", value: truncate(req.requestedBy ? renderOperator(req.requestedBy) : "unknown", 256), inline: true });
  if (state.kind === "pending") fields.push({ name: "Expires", value: ts(req.expiresAt, "R"), inline: true });
  const outcome = outcomeLine(state);
  if (outcome) fields.push({ name: "Decision", value: truncate(outcome, 1024) });

  const embed = {
    title: truncate(`Approval needed: ${req.toolPath}`, 256),
    description: truncate(req.description || "(no description)", MAX_DESCRIPTION),
    color: color(state),
    fields,
    // Every part is bounded so the whole embed stays under Discord's 6000 characters.
    footer: { text: truncate(`call ${req.callId} · run ${req.runId}`, 512) },
    timestamp: new Date(req.requestedAt).toISOString(),
  };

  const components =
    state.kind === "pending"
      ? [
          {
            type: 1,
            components: [
              { type: 2, style: 3, label: "Approve", custom_id: cardButtonId("approve", req.callId) },
              { type: 2, style: 1, label: "Approve always", custom_id: cardButtonId("always", req.callId) },
              { type: 2, style: 4, label: "Deny", custom_id: cardButtonId("deny", req.callId) },
              { type: 2, style: 2, label: "Deny with reason", custom_id: cardButtonId("denyr", req.callId) },
            ],
          },
        ]
      : [];
  return { embeds: [embed], components };
}

import { escapeMarkdown } from "discord.js";
import { cutText, escapeInvisible } from "@openassistant/core/text";
import { fitText } from "./fit.ts";
import { progressNote } from "../../../events/progress-note.ts";
import type { GatewayEvent } from "../../../events/types.ts";

/** What the live status message shows while a turn runs. */
export interface TurnStatus {
  readonly phase: "thinking" | "running" | "approval" | "done" | "failed";
  /** Number of tool calls settled so far in this turn. */
  readonly calls: number;
  /** Call ids of this turn's approvals still waiting (a set, so an event seen twice counts once). */
  readonly waiting: readonly string[];
  readonly startedAt: number;
  readonly error?: string;
  /** The model's latest progress note (thinking text the display returns), or a retry wait. */
  readonly note?: string;
}

export function initialStatus(now = Date.now()): TurnStatus {
  return { phase: "thinking", calls: 0, waiting: [], startedAt: now };
}

/**
 * Folds one gateway event into the status. Approval events carry no turn id: `ownRun` says whether
 * a run belongs to this turn.
 */
export function nextStatus(s: TurnStatus, e: GatewayEvent, ownRun: (runId: string) => boolean): TurnStatus {
  if (s.phase === "done" || s.phase === "failed") return s;
  switch (e.type) {
    case "model.request":
      return s.waiting.length > 0 ? s : { ...s, phase: "thinking" };
    case "model.thinking":
      return { ...s, note: e.text };
    case "model.retrying":
      return { ...s, note: `waiting ${e.seconds} s before retrying (${e.reason})` };
    case "history.compacted":
      return { ...s, note: "compacting the conversation to fit the model's context window" };
    case "run.started":
      return ownRun(e.runId) ? { ...s, phase: "running" } : s;
    case "run.finished":
      return ownRun(e.runId) ? { ...s, phase: "thinking", waiting: [] } : s;
    case "call.settled":
      return ownRun(e.runId) ? { ...s, calls: s.calls + 1 } : s;
    case "call.progress":
      return ownRun(e.runId) ? { ...s, note: progressNote(e.progress) } : s;
    case "approval.requested":
      if (!ownRun(e.request.runId) || s.waiting.includes(e.request.callId)) return s;
      return { ...s, phase: "approval", waiting: [...s.waiting, e.request.callId] };
    case "approval.decided": {
      if (!s.waiting.includes(e.callId)) return s;
      const waiting = s.waiting.filter((c) => c !== e.callId);
      return { ...s, waiting, phase: waiting.length > 0 ? "approval" : "running" };
    }
    case "turn.finished":
      return { ...s, phase: "done" };
    case "error":
      return { ...s, phase: "failed", error: e.message };
    default:
      return s;
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** First line of an error, at most 200 characters: the status is a glance, the answer explains. */
function shortReason(error: string | undefined): string {
  const line = (error ?? "unknown error").split("\n")[0]!.trim() || "unknown error";
  return fitText(line, 200, "ellipsis");
}

/** One line of model text for the status: last line, escaped, at most 150 characters. */
function noteLine(note: string | undefined): string {
  const line = note
    ?.trim()
    .split("\n")
    .filter((l) => l.trim())
    .at(-1)
    ?.trim();
  return line ? ` — ${escapeMarkdown(escapeInvisible(cutText(line, 150, { marker: () => "…" })))}` : "";
}

export function renderStatus(s: TurnStatus, now = Date.now()): string {
  const calls = s.calls > 0 ? ` · ${s.calls} call${s.calls === 1 ? "" : "s"}` : "";
  switch (s.phase) {
    case "thinking":
      return `💭 Thinking…${calls}${noteLine(s.note)}`;
    case "running":
      return `⚙️ Running code…${calls}${noteLine(s.note)}`;
    case "approval":
      return `⏸️ Waiting for approval (${s.waiting.length} pending)${calls}`;
    case "done":
      return `✅ Done in ${seconds(now - s.startedAt)}${calls}`;
    case "failed":
      return `⚠️ Failed: ${shortReason(s.error)}`;
  }
}

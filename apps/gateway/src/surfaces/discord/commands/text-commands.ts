import { echo, fitThreadName } from "../render/fit.ts";

/** `/approve <callId> approve|deny [reason]` typed as a plain message (fallback when slash commands are unavailable). */
export type ApproveCommand =
  | { readonly ok: true; readonly callId: string; readonly decision: "approved" | "denied"; readonly reason?: string }
  | { readonly ok: false; readonly error: string };

const APPROVE_USAGE = "Usage: `/approve <call id> approve|deny [reason]` — the call id is in the card's footer.";

export function isApproveText(text: string): boolean {
  return /^\s*[/!]approve(\s|$)/i.test(text);
}

export function parseApproveText(text: string): ApproveCommand {
  const m = /^\s*[/!]approve\s+(\S+)\s+(\S+)(?:\s+([\s\S]+))?$/i.exec(text);
  if (!m) return { ok: false, error: APPROVE_USAGE };
  return parseApproveArgs(m[1]!, m[2]!, m[3]);
}

function parseApproveArgs(callId: string, verb: string, reason: string | undefined | null): ApproveCommand {
  const v = verb.toLowerCase();
  const decision =
    v === "approve" || v === "approved" || v === "yes"
      ? "approved"
      : v === "deny" || v === "denied" || v === "no"
        ? "denied"
        : null;
  if (!decision) return { ok: false, error: `"${echo(verb, 30)}" is not approve or deny. ${APPROVE_USAGE}` };
  const r = reason?.trim();
  return r ? { ok: true, callId, decision, reason: r } : { ok: true, callId, decision };
}

/** A thread title from the request: first line, mentions removed, at most 100 characters (Discord's limit), cut on a grapheme boundary. */
export function threadNameFrom(text: string): string {
  const line = text
    .replace(/<@[!&]?\d+>/g, "")
    .replace(/```[\s\S]*$/, "")
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l.length > 0);
  return fitThreadName(line ?? "Conversation");
}

/** The message text without mentions of the bot. */
export function stripBotMention(text: string, botId: string): string {
  return text.replace(new RegExp(`<@!?${botId}>`, "g"), "").trim();
}

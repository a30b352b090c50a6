import type { ApprovalRequest } from "@openassistant/core/approvals/types.ts";
import { renderOutcome, type RenderableOutcome } from "../../grounding/render.ts";

const MAX_CODE_LINES = 20;

/**
 * Model text, the model's code and tool input reach the operator's terminal: control characters
 * (ESC sequences, carriage returns, backspaces, C1 codes) would let them redraw the screen, hide
 * lines of an approval card or fake an answer's summary. They are shown as visible escapes instead;
 * newlines and tabs stay.
 */
export function escapeControlChars(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  return text.replace(/\r\n/g, "\n").replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The approval card as terminal text. */
export function formatApprovalPrompt(request: ApprovalRequest, queued: number): string {
  const lines = [
    "",
    `── Approval needed${queued > 0 ? ` (${queued} more waiting)` : ""} ──`,
    `Tool:  tools.${request.toolPath}`,
    `What:  ${request.description}`,
    `Input: ${request.inputPreview}`,
  ];
  if (request.requestedBy) lines.push(`Asked by: ${request.requestedBy}`);
  if (request.code) {
    const code = request.code.split("\n");
    lines.push("Code:");
    for (const line of code.slice(0, MAX_CODE_LINES)) lines.push(`  │ ${line}`);
    if (code.length > MAX_CODE_LINES) lines.push(`  │ … (${code.length - MAX_CODE_LINES} more lines)`);
  }
  const seconds = Math.max(0, Math.round((request.expiresAt - Date.now()) / 1000));
  lines.push(`Expires in ${seconds}s (then denied).`);
  lines.push("[a] approve   [d] deny   [r] deny with a reason  (r <reason> also works)");
  return escapeControlChars(lines.join("\n"));
}

/** The answer with the unverified mark and the activity summary under it. */
export function formatAnswer(outcome: RenderableOutcome): string {
  const [first, ...rest] = escapeControlChars(renderOutcome(outcome)).split("\n");
  return `\nassistant › ${[first, ...rest.map((l) => (l ? `  ${l}` : l))].join("\n")}\n`;
}

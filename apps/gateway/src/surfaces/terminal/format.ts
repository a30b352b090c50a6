import { requestInputPreview } from "@openassistant/core/approvals";
import type { ApprovalRequest } from "@openassistant/core/approvals";
import type { ActivitySummary } from "@openassistant/core/receipts";
import { escapeInvisible } from "@openassistant/core/text";
import { renderOutcome, type RenderableOutcome } from "../../grounding/render.ts";

const MAX_CODE_LINES = 20;
/** Characters of the per-field input preview in the prompt; `i` shows the whole input. */
const INPUT_CHARS = 4000;

/**
 * Model text, the model's code and tool input reach the operator's terminal: control characters
 * (ESC sequences, carriage returns, backspaces, C1 codes) would let them redraw the screen, hide
 * lines of an approval card or fake an answer's summary, and bidi overrides or zero-width
 * characters would make text read differently from what it is. They are shown as visible
 * escapes instead (`\u{202E}`); newlines and tabs stay.
 */
export function escapeControlChars(text: string): string {
  return escapeInvisible(text.replace(/\r\n/g, "\n"));
}

/** The approval card as terminal text: every field of the input, each cut on its own. */
export function formatApprovalPrompt(request: ApprovalRequest, queued: number): string {
  const input = requestInputPreview(request, {
    maxChars: INPUT_CHARS,
    moreFields: (n) => `… and ${n.toLocaleString("en-US")} more fields: press i to see the whole input`,
  });
  const lines = [
    "",
    `── Approval needed${queued > 0 ? ` (${queued} more waiting)` : ""} ──`,
    `Tool:  tools.${request.toolPath}`,
    `What:  ${request.description}`,
    ...(request.summary
      ? [
          "Summary:",
          ...request.summary
            .split("\n")
            .slice(0, MAX_CODE_LINES * 2)
            .map((line) => `  │ ${line}`),
        ]
      : []),
    "Input:",
    ...input.split("\n").map((line) => `  ${line}`),
  ];
  // The files the tool shows whole (e.g. the source a workspace write installs): their start here, all with `i`.
  for (const file of request.files ?? []) {
    const body = file.text.split("\n");
    lines.push(`File ${file.name} (${body.length} lines, whole with i):`);
    for (const line of body.slice(0, MAX_CODE_LINES)) lines.push(`  │ ${line}`);
    if (body.length > MAX_CODE_LINES) lines.push(`  │ … (${body.length - MAX_CODE_LINES} more lines: press i)`);
  }
  if (request.requestedBy) lines.push(`Asked by: ${request.requestedBy}`);
  if (request.code) {
    const code = request.code.split("\n");
    lines.push("Code:");
    for (const line of code.slice(0, MAX_CODE_LINES)) lines.push(`  │ ${line}`);
    if (code.length > MAX_CODE_LINES) lines.push(`  │ … (${code.length - MAX_CODE_LINES} more lines)`);
  }
  const seconds = Math.max(0, Math.round((request.expiresAt - Date.now()) / 1000));
  lines.push(`Expires in ${seconds}s (then denied).`);
  lines.push(
    `[a] approve   [d] deny   [r] deny with a reason  (r <reason> also works)${request.files?.length ? "   [i] whole files" : request.inputJson !== undefined ? "   [i] whole input" : ""}`,
  );
  return escapeControlChars(lines.join("\n"));
}

/** The whole input of a request (secrets already redacted), as indented JSON; or its files, each whole. */
export function formatFullInput(request: ApprovalRequest): string {
  if (request.files?.length)
    return escapeControlChars(
      request.files.map((f) => `── ${f.name} (whole) ──\n${f.text}\n── end of ${f.name} ──`).join("\n"),
    );
  const body = request.inputJson ?? request.inputPreview;
  return escapeControlChars(`── Whole input of tools.${request.toolPath} ──\n${body}\n── end of input ──`);
}

/** The answer with the unverified mark and the activity summary under it. */
export function formatAnswer(outcome: RenderableOutcome): string {
  const [first, ...rest] = escapeControlChars(renderOutcome(outcome)).split("\n");
  return `\nassistant › ${[first, ...rest.map((l) => (l ? `  ${l}` : l))].join("\n")}\n`;
}

/**
 * The console link of an answer's receipts, on one line: the run page of its last call (a signed
 * link opens the whole run, every call on it), with how many calls and runs the answer made.
 */
export function formatReceiptLinks(
  summary: Pick<ActivitySummary, "items">,
  link: (runId: string, callId: string) => string,
): string {
  const runs = new Set(summary.items.map((i) => i.runId)).size;
  const last = summary.items.at(-1)!;
  const calls = summary.items.length;
  const scope = `${calls} call${calls === 1 ? "" : "s"}${runs > 1 ? ` in ${runs} runs, /receipts lists all` : ""}`;
  return `  Receipts in the console (${scope}): ${escapeControlChars(last.toolId)} [${last.receiptRef}] ${link(last.runId, last.callId)}\n`;
}

/** The first line of a typecheck's diagnostics, shown as activity while the model repairs its code. */
export function formatTypecheckFailure(diagnostics: string, repairRound: number): string {
  const first = diagnostics.split("\n").find((l) => l.trim()) ?? "type error";
  const count = diagnostics.split("\n").filter((l) => /error TS\d+|: error/.test(l)).length;
  const more = count > 1 ? ` (+${count - 1} more)` : "";
  return escapeControlChars(
    `  ✗ the code did not typecheck: ${first.trim()}${more}; the assistant is fixing it (repair ${repairRound})`,
  );
}

/** `/help` in the terminal. */
export function formatHelp(models: readonly string[]): string {
  return [
    "Commands:",
    "  /help            this list",
    "  /model           the model of this conversation; /model <name> switches it, /model default goes back",
    `                   (known: ${models.join(", ")})`,
    "  /reload          reload tools and config now (a saved file reloads by itself)",
    "  /ability         run list | run <name> key=value … | status | cancel (docs/abilities.md)",
    "  /exit, /quit     quit (Ctrl-D too)",
    "  //text           send a message that starts with /",
    "While an approval waits: a approve, d deny, r <reason> deny with a reason, i the whole input.",
  ].join("\n");
}

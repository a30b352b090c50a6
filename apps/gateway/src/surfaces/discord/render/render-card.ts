import { INPUT_TOO_LARGE, requestInputPreview } from "@openassistant/core/approvals";
import type { ApprovalDecision, ApprovalRequest } from "@openassistant/core/approvals";
import { ELLIPSIS, cutText, escapeInvisible } from "@openassistant/core/text";
import { cardButtonId } from "../custom-ids.ts";
import { renderOperator } from "../operator-id.ts";

/** Plain Discord API JSON (discord.js accepts it for send/edit), so rendering stays testable. */
export interface CardMessage {
  readonly content?: string;
  readonly embeds: Array<Record<string, unknown>>;
  readonly components: Array<Record<string, unknown>>;
  /** Only when a card is first sent (see `cardFiles`); an edit without `files` keeps them. */
  readonly files?: ReadonlyArray<{ readonly attachment: Buffer; readonly name: string }>;
}

export type CardState =
  | { readonly kind: "pending" }
  | { readonly kind: "decided"; readonly decision: ApprovalDecision; readonly at: number }
  | { readonly kind: "closed"; readonly reason: string; readonly at: number };

const COLOR = { pending: 0xf0b232, approved: 0x23a55a, denied: 0xda373c, closed: 0x80848e } as const;
const MAX_CODE = 900;
const MAX_DESCRIPTION = 600;
const MAX_SUMMARY = 1_500;
/** Discord's limits (https://discord.com/developers/docs/resources/message#embed-object-embed-limits). */
const EMBED_DESCRIPTION = 4096;
const EMBED_TOTAL = 6000;
const FIELD_VALUE = 1024;
/** The names of the files holding the whole input, and the whole code when the card cuts it. */
const INPUT_FILE = "input.json";
const CODE_FILE = "code.ts";

/** At most `max` UTF-16 units, ending in "…" when cut; cut on a grapheme boundary. */
export function truncate(s: string, max: number): string {
  return cutText(s, max, { marker: ELLIPSIS });
}

/**
 * A backtick followed by another is shown as `\u{0060}`, so a body cannot close its code block.
 * (A visible escape, like every other character the card escapes; a zero-width space between the
 * backticks would itself be an invisible character on the card.)
 */
function neutralizeFences(body: string): string {
  return body.replace(/`(?=`)/g, "\\u{0060}");
}

/**
 * A code block of at most `max` characters (Discord: 1024 per field value) whose user-controlled
 * body cannot close it early. Neutralizing adds characters, so it runs before truncation.
 */
function codeBlock(lang: string, body: string, max: number): string {
  const open = `\`\`\`${lang}\n`;
  const close = "\n```";
  return `${open}${truncate(neutralizeFences(body), max - open.length - close.length)}${close}`;
}

/**
 * The input as a code block of at most `max` characters: one line per field, each cut on its own
 * (approvals/input-preview.ts), never the whole block cut at once.
 */
function inputBlock(req: ApprovalRequest, max: number): string {
  const open = "```\n";
  const close = "\n```";
  const room = max - open.length - close.length;
  const render = (chars: number) =>
    requestInputPreview(req, {
      maxChars: chars,
      moreFields: (n) => `… and ${n.toLocaleString("en-US")} more fields: see ${INPUT_FILE}`,
    });
  let body = neutralizeFences(render(room));
  // The escapes made it longer: render again with that much less room.
  if (body.length > room) body = neutralizeFences(render(room - (body.length - room)));
  return `${open}${truncate(body, room)}${close}`;
}

/** What the card says about the input file (empty for records made before files were attached). */
function inputNote(req: ApprovalRequest): string {
  if (req.files?.length)
    return `Every field is listed, long ones cut; attached whole: ${req.files.map((f) => `\`${f.name}\``).join(", ")}.`;
  if (req.inputJson === undefined) return "";
  if (req.inputJson.endsWith(INPUT_TOO_LARGE))
    return `The input is too large to attach whole: \`${INPUT_FILE}\` holds its start.`;
  return `Every field is listed, long ones cut; the whole input is attached as \`${INPUT_FILE}\`.`;
}

/**
 * Files to send with a new card: the files the tool asked to show whole (`req.files`, e.g. the
 * source a workspace write installs and its diff), or else the whole input as `input.json`;
 * secrets redacted either way (a multipart upload,
 * https://discord.com/developers/docs/reference#uploading-files; at most 2,000,000 characters in
 * all, so under the 10 MiB default upload limit; at most 8 tool files plus `code.ts`, under the 10
 * files a message takes). Edits send no `attachments`, so the files stay (discord.js
 * MessageEditOptions: "All attachments will be kept if omitted").
 */
export function cardFiles(req: ApprovalRequest): Array<{ attachment: Buffer; name: string }> {
  const files = req.files?.length
    ? req.files.map((f) => ({ attachment: Buffer.from(f.text, "utf8"), name: f.name }))
    : req.inputJson === undefined
      ? []
      : [{ attachment: Buffer.from(req.inputJson, "utf8"), name: INPUT_FILE }];
  if (req.code && codeIsCut(req.code)) files.push({ attachment: Buffer.from(req.code, "utf8"), name: CODE_FILE });
  return files;
}

function codeField(code: string): string {
  return codeBlock("ts", escapeInvisible(code), MAX_CODE);
}

function codeIsCut(code: string): boolean {
  return codeField(code).endsWith("…\n```");
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
 * The approval card: tool path, description, every field of the input (the whole input is the
 * attached `input.json`), the code that made the call, who asked. Text the model could have
 * written shows invisible and bidi characters escaped. Pending cards carry the four buttons;
 * decided/closed cards show the outcome, no buttons.
 */
export function renderCard(req: ApprovalRequest, state: CardState): CardMessage {
  const fields: Array<{ name: string; value: string; inline?: boolean }> = [];
  if (req.code)
    fields.push({
      name: "Code",
      value: codeIsCut(req.code)
        ? `${codeField(req.code)}\nThe whole code is attached as \`${CODE_FILE}\`.`
        : codeField(req.code),
    });
  fields.push({
    name: "Asked by",
    value: truncate(req.requestedBy ? renderOperator(escapeInvisible(req.requestedBy)) : "unknown", 256),
    inline: true,
  });
  if (state.kind === "pending") fields.push({ name: "Expires", value: ts(req.expiresAt, "R"), inline: true });
  const outcome = outcomeLine(state);
  if (outcome) fields.push({ name: "Decision", value: truncate(escapeInvisible(outcome), FIELD_VALUE) });

  const title = truncate(`Approval needed: ${escapeInvisible(req.toolPath)}`, 256);
  const footer = truncate(`call ${escapeInvisible(req.callId)} · run ${escapeInvisible(req.runId)}`, 512);
  const note = inputNote(req);
  // The tool's own summary of the call (e.g. a file's SHA-256, packages and diff) comes first.
  const summary = req.summary ? `\n${codeBlock("diff", escapeInvisible(req.summary), MAX_SUMMARY)}` : "";
  const head = `${truncate(escapeInvisible(req.description || "(no description)"), MAX_DESCRIPTION)}${summary}\n\n**Input**${note ? ` · ${note}` : ""}\n`;
  // The input gets what is left of Discord's 6000 characters per embed, with room kept for the
  // longest "Decision" field, so the card shows the same input before and after a decision.
  const others =
    title.length +
    footer.length +
    fields
      .filter((f) => f.name !== "Decision" && f.name !== "Expires")
      .reduce((n, f) => n + f.name.length + f.value.length, 0);
  const decisionRoom = "Decision".length + FIELD_VALUE;
  const inputRoom = Math.min(EMBED_DESCRIPTION - head.length, EMBED_TOTAL - others - decisionRoom - head.length);

  const embed = {
    title,
    description: head + inputBlock(req, inputRoom),
    color: color(state),
    fields,
    footer: { text: footer },
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

import { DiscordHttpError, invalidFormBody } from "./http.ts";
import type { Json } from "./types.ts";

/**
 * Discord's documented limits on what a bot sends, checked on every request that carries them.
 * Each rule names the page that documents it. Lengths are UTF-16 code units, as Discord counts.
 */

const tooLong = (field: string, max: number) =>
  invalidFormBody(field, "BASE_TYPE_MAX_LENGTH", `Must be ${max} or fewer in length.`);
const badLength = (field: string, min: number, max: number) =>
  invalidFormBody(field, "BASE_TYPE_BAD_LENGTH", `Must be between ${min} and ${max} in length.`);
const len = (v: unknown) => (typeof v === "string" ? v.length : 0);

// https://docs.discord.com/developers/resources/message#create-message — "content: up to 2000 characters".
export const CONTENT_LIMIT = 2000;

// https://docs.discord.com/developers/resources/message#embed-object-embed-limits
export const EMBED_LIMITS = {
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  author: 256,
  total: 6000,
} as const;

// https://docs.discord.com/developers/components/reference — action rows: up to 5 per message, up to
// 5 buttons each; custom_id 1–100 characters and unique per message; button label max 80.
export const COMPONENT_LIMITS = { rows: 5, buttonsPerRow: 5, customId: 100, buttonLabel: 80 } as const;

// https://docs.discord.com/developers/interactions/receiving-and-responding#interaction-response-object-modal
// (title max 45, up to 5 components) and https://docs.discord.com/developers/components/reference#text-input
// (label max 45, min_length 0–4000, max_length 1–4000, value max 4000, placeholder max 100).
export const MODAL_LIMITS = { title: 45, components: 5, textLabel: 45, maxLength: 4000, placeholder: 100 } as const;

// https://docs.discord.com/developers/reference#uploading-files — files go as multipart `files[n]`
// parts, each naming its filename in Content-Disposition; a message holds up to 10 attachments,
// each within the upload size limit: 10 MiB by default
// (the `attachment_size_limit` an interaction carries, https://docs.discord.com/developers/interactions/receiving-and-responding#interaction-object).
// Over the limit Discord answers 413 with JSON code 40005 "Request entity too large"
// (https://docs.discord.com/developers/topics/opcodes-and-status-codes#json). No Discord page
// gives a filename length limit, so the fake enforces none (a rule here must come from the docs).
export const FILE_LIMITS = { files: 10, bytes: 10 * 1024 * 1024 } as const;

/** The files of a create or edit: `kept` attachments stay on the message beside the new ones. */
export function validateFiles(
  files: ReadonlyArray<{ filename: string; bytes: Uint8Array }>,
  kept = 0,
  at = "attachments",
): void {
  if (files.length + kept > FILE_LIMITS.files) throw tooLong(at, FILE_LIMITS.files);
  files.forEach((f, i) => {
    if (!f.filename) throw invalidFormBody(`${at}.${i}.filename`, "BASE_TYPE_REQUIRED", "This field is required");
    if (f.bytes.byteLength > FILE_LIMITS.bytes) throw new DiscordHttpError(413, 40005, "Request entity too large");
  });
}

export function validateContent(content: string, at = "content"): void {
  if (content.length > CONTENT_LIMIT) throw tooLong(at, CONTENT_LIMIT);
}

export function validateEmbeds(embeds: Json[], at = "embeds"): void {
  if (!Array.isArray(embeds))
    throw invalidFormBody(at, "LIST_TYPE_CONVERT", "Only iterables may be used in a ListType");
  // https://docs.discord.com/developers/resources/message#create-message — "embeds: up to 10 rich embeds".
  if (embeds.length > 10) throw tooLong(at, 10);
  let total = 0;
  embeds.forEach((embed, i) => {
    const e = `${at}.${i}`;
    if (len(embed.title) > EMBED_LIMITS.title) throw tooLong(`${e}.title`, EMBED_LIMITS.title);
    if (len(embed.description) > EMBED_LIMITS.description) throw tooLong(`${e}.description`, EMBED_LIMITS.description);
    if (len(embed.footer?.text) > EMBED_LIMITS.footer) throw tooLong(`${e}.footer.text`, EMBED_LIMITS.footer);
    if (len(embed.author?.name) > EMBED_LIMITS.author) throw tooLong(`${e}.author.name`, EMBED_LIMITS.author);
    const fields: Json[] = embed.fields ?? [];
    if (fields.length > EMBED_LIMITS.fields) throw tooLong(`${e}.fields`, EMBED_LIMITS.fields);
    fields.forEach((f, j) => {
      if (!len(f.name)) throw invalidFormBody(`${e}.fields.${j}.name`, "BASE_TYPE_REQUIRED", "This field is required");
      if (!len(f.value))
        throw invalidFormBody(`${e}.fields.${j}.value`, "BASE_TYPE_REQUIRED", "This field is required");
      if (len(f.name) > EMBED_LIMITS.fieldName) throw tooLong(`${e}.fields.${j}.name`, EMBED_LIMITS.fieldName);
      if (len(f.value) > EMBED_LIMITS.fieldValue) throw tooLong(`${e}.fields.${j}.value`, EMBED_LIMITS.fieldValue);
      total += len(f.name) + len(f.value);
    });
    total += len(embed.title) + len(embed.description) + len(embed.footer?.text) + len(embed.author?.name);
  });
  if (total > EMBED_LIMITS.total)
    throw invalidFormBody(at, "MAX_EMBED_SIZE_EXCEEDED", `Embed size exceeds maximum size of ${EMBED_LIMITS.total}`);
}

/** Legacy (non components-v2) message components: action rows of buttons or one select. */
export function validateComponents(components: Json[], at = "components"): void {
  if (!Array.isArray(components))
    throw invalidFormBody(at, "LIST_TYPE_CONVERT", "Only iterables may be used in a ListType");
  if (components.length > COMPONENT_LIMITS.rows) throw tooLong(at, COMPONENT_LIMITS.rows);
  const seen = new Set<string>();
  components.forEach((row, i) => {
    const r = `${at}.${i}`;
    if (row?.type !== 1)
      throw invalidFormBody(`${r}.type`, "UNION_TYPE_CHOICES", 'Value of field "type" must be one of (1,).');
    const children: Json[] = row.components ?? [];
    if (children.length < 1) throw badLength(`${r}.components`, 1, COMPONENT_LIMITS.buttonsPerRow);
    if (children.length > COMPONENT_LIMITS.buttonsPerRow)
      throw tooLong(`${r}.components`, COMPONENT_LIMITS.buttonsPerRow);
    const selects = children.filter((c) => c.type >= 3 && c.type <= 8 && c.type !== 4);
    if (selects.length && children.length > 1)
      throw invalidFormBody(
        `${r}.components`,
        "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
        "The specified component exceeds the maximum width",
      );
    children.forEach((c, j) => {
      const f = `${r}.components.${j}`;
      if (c.type === 2 && c.label !== undefined && len(c.label) > COMPONENT_LIMITS.buttonLabel)
        throw tooLong(`${f}.label`, COMPONENT_LIMITS.buttonLabel);
      if (c.type === 2 && c.style === 5) return; // link buttons have a url, no custom_id
      if (c.custom_id === undefined) {
        if (c.type === 2 && c.style === 6) return; // premium buttons use sku_id
        throw invalidFormBody(`${f}.custom_id`, "BASE_TYPE_REQUIRED", "This field is required");
      }
      if (typeof c.custom_id !== "string" || c.custom_id.length < 1 || c.custom_id.length > COMPONENT_LIMITS.customId)
        throw badLength(`${f}.custom_id`, 1, COMPONENT_LIMITS.customId);
      if (seen.has(c.custom_id))
        throw invalidFormBody(
          `${f}.custom_id`,
          "COMPONENT_CUSTOM_ID_DUPLICATED",
          "Component custom id cannot be duplicated",
        );
      seen.add(c.custom_id);
    });
  });
}

/** The `data` of an interaction callback of type 9 (MODAL). */
export function validateModal(data: Json | null): void {
  const at = "data";
  if (!data || typeof data.custom_id !== "string")
    throw invalidFormBody(`${at}.custom_id`, "BASE_TYPE_REQUIRED", "This field is required");
  if (data.custom_id.length < 1 || data.custom_id.length > COMPONENT_LIMITS.customId)
    throw badLength(`${at}.custom_id`, 1, COMPONENT_LIMITS.customId);
  if (typeof data.title !== "string")
    throw invalidFormBody(`${at}.title`, "BASE_TYPE_REQUIRED", "This field is required");
  if (data.title.length < 1 || data.title.length > MODAL_LIMITS.title)
    throw badLength(`${at}.title`, 1, MODAL_LIMITS.title);
  const rows: Json[] = Array.isArray(data.components) ? data.components : [];
  if (rows.length < 1 || rows.length > MODAL_LIMITS.components)
    throw badLength(`${at}.components`, 1, MODAL_LIMITS.components);
  rows.forEach((row, i) => {
    const inputs: Json[] = row.type === 18 ? [row.component] : row.type === 1 ? (row.components ?? []) : [];
    if (row.type === 18 && len(row.label) > MODAL_LIMITS.textLabel)
      throw tooLong(`${at}.components.${i}.label`, MODAL_LIMITS.textLabel);
    inputs.forEach((c, j) => {
      if (c?.type !== 4) return;
      const f = row.type === 18 ? `${at}.components.${i}.component` : `${at}.components.${i}.components.${j}`;
      if (typeof c.custom_id !== "string" || c.custom_id.length < 1 || c.custom_id.length > COMPONENT_LIMITS.customId)
        throw badLength(`${f}.custom_id`, 1, COMPONENT_LIMITS.customId);
      if (
        row.type === 1 &&
        (typeof c.label !== "string" || c.label.length < 1 || c.label.length > MODAL_LIMITS.textLabel)
      )
        throw badLength(`${f}.label`, 1, MODAL_LIMITS.textLabel);
      if (c.max_length !== undefined && (c.max_length < 1 || c.max_length > MODAL_LIMITS.maxLength))
        throw invalidFormBody(
          `${f}.max_length`,
          "NUMBER_TYPE_MAX",
          `int value should be less than or equal to ${MODAL_LIMITS.maxLength}.`,
        );
      if (c.min_length !== undefined && (c.min_length < 0 || c.min_length > MODAL_LIMITS.maxLength))
        throw invalidFormBody(
          `${f}.min_length`,
          "NUMBER_TYPE_MAX",
          `int value should be less than or equal to ${MODAL_LIMITS.maxLength}.`,
        );
      if (len(c.value) > MODAL_LIMITS.maxLength) throw tooLong(`${f}.value`, MODAL_LIMITS.maxLength);
      if (len(c.placeholder) > MODAL_LIMITS.placeholder) throw tooLong(`${f}.placeholder`, MODAL_LIMITS.placeholder);
    });
  });
}

/**
 * JSON strings must be valid Unicode: a lone UTF-16 surrogate (e.g. half an emoji left by a naive
 * cut, sent as "\ud83d") cannot be encoded as UTF-8 and Discord rejects the body as invalid.
 * https://docs.discord.com/developers/reference#http-api — request bodies are JSON (RFC 8259, UTF-8).
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function findMalformedUtf16(value: unknown, at = ""): string | null {
  if (typeof value === "string") return LONE_SURROGATE.test(value) ? at || "_root" : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = findMalformedUtf16(value[i], at ? `${at}.${i}` : String(i));
      if (bad) return bad;
    }
    return null;
  }
  if (value && typeof value === "object") {
    for (const [key, v] of Object.entries(value)) {
      const bad = findMalformedUtf16(v, at ? `${at}.${key}` : key);
      if (bad) return bad;
    }
  }
  return null;
}

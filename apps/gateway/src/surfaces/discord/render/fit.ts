import { cutText, ELLIPSIS } from "@openassistant/core/text";

/**
 * The one place that makes what we send fit Discord's documented limits (messages, embeds,
 * components, modals, thread names). Every send, edit, reply and modal goes through it, so a long
 * or emoji-heavy input can never produce a request Discord rejects. Cuts land on grapheme
 * boundaries (cutText), and lone UTF-16 surrogates, which Discord refuses, become U+FFFD.
 */
export const DISCORD_LIMITS = {
  content: 2000,
  embeds: 10,
  embedTitle: 256,
  embedDescription: 4096,
  embedFields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  author: 256,
  embedTotal: 6000,
  rows: 5,
  buttonsPerRow: 5,
  customId: 100,
  buttonLabel: 80,
  modalTitle: 45,
  textInputLabel: 45,
  textInputMax: 4000,
  placeholder: 100,
  threadName: 100,
} as const;

// API-shaped JSON
type Json = Record<string, any>;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `text` made valid Unicode and cut to `max` UTF-16 units on a grapheme boundary. */
export function fitText(text: string, max: number, marker: "count" | "ellipsis" = "count"): string {
  const clean = String(text).replace(LONE_SURROGATE, "\ufffd");
  return marker === "ellipsis" ? cutText(clean, max, { marker: ELLIPSIS }) : cutText(clean, max);
}

/** An id or word typed by a user, echoed back in a reply: short, on one line, in code span safe form. */
export function echo(text: string, max = 60): string {
  return fitText(String(text).replace(/\s+/g, " ").replace(/`/g, "'"), max, "ellipsis");
}

/** A thread name: 1–100 characters. */
export function fitThreadName(name: string): string {
  const fitted = fitText(name.replace(/\s+/g, " ").trim(), DISCORD_LIMITS.threadName, "ellipsis");
  return fitted || "Conversation";
}

function fitEmbed(embed: Json): Json {
  const out: Json = { ...embed };
  if (typeof out.title === "string") out.title = fitText(out.title, DISCORD_LIMITS.embedTitle, "ellipsis");
  if (typeof out.description === "string") out.description = fitText(out.description, DISCORD_LIMITS.embedDescription);
  if (out.footer?.text !== undefined)
    out.footer = { ...out.footer, text: fitText(out.footer.text, DISCORD_LIMITS.footer, "ellipsis") };
  if (out.author?.name !== undefined)
    out.author = { ...out.author, name: fitText(out.author.name, DISCORD_LIMITS.author, "ellipsis") };
  if (Array.isArray(out.fields)) {
    out.fields = out.fields.slice(0, DISCORD_LIMITS.embedFields).map((f: Json) => ({
      ...f,
      name: fitText(String(f.name ?? "").trim() ? String(f.name) : "-", DISCORD_LIMITS.fieldName, "ellipsis"),
      value: fitText(String(f.value ?? "").trim() ? String(f.value) : "-", DISCORD_LIMITS.fieldValue),
    }));
  }
  return out;
}

function embedSize(e: Json): number {
  const len = (v: unknown) => (typeof v === "string" ? v.length : 0);
  return (
    len(e.title) +
    len(e.description) +
    len(e.footer?.text) +
    len(e.author?.name) +
    (e.fields ?? []).reduce((n: number, f: Json) => n + len(f.name) + len(f.value), 0)
  );
}

/** Keeps all embeds of a message within 6000 characters: descriptions shrink first, then trailing fields go. */
function fitEmbedTotal(embeds: Json[]): Json[] {
  let excess = embeds.reduce((n, e) => n + embedSize(e), 0) - DISCORD_LIMITS.embedTotal;
  if (excess <= 0) return embeds;
  const out: Json[] = embeds.map((e) => ({ ...e, fields: e.fields ? [...e.fields] : e.fields }));
  for (const e of [...out].reverse()) {
    if (excess <= 0) break;
    if (typeof e.description === "string" && e.description.length > 100) {
      const keep = Math.max(100, e.description.length - excess);
      const before = e.description.length;
      e.description = fitText(e.description, keep);
      excess -= before - e.description.length;
    }
    while (excess > 0 && e.fields?.length) {
      const f = e.fields.pop();
      excess -= String(f.name).length + String(f.value).length;
    }
  }
  return out;
}

function fitComponents(rows: Json[]): Json[] {
  const seen = new Set<string>();
  return rows.slice(0, DISCORD_LIMITS.rows).flatMap((row) => {
    if (row?.type !== 1 || !Array.isArray(row.components)) return [row];
    const children = row.components
      .filter((c: Json) => {
        if (typeof c.custom_id !== "string") return true;
        // An id we cannot shorten without breaking what it points to: drop the component rather than be refused.
        if (c.custom_id.length < 1 || c.custom_id.length > DISCORD_LIMITS.customId || seen.has(c.custom_id))
          return false;
        seen.add(c.custom_id);
        return true;
      })
      .slice(0, DISCORD_LIMITS.buttonsPerRow)
      .map((c: Json) =>
        typeof c.label === "string" ? { ...c, label: fitText(c.label, DISCORD_LIMITS.buttonLabel, "ellipsis") } : c,
      );
    return children.length ? [{ ...row, components: children }] : [];
  });
}

/** A message payload (send, edit, reply, follow-up) within Discord's limits. */
export function fitMessage<T extends object>(payload: T): T {
  const p = { ...payload } as Json;
  if (typeof p.content === "string") p.content = fitText(p.content, DISCORD_LIMITS.content);
  if (Array.isArray(p.embeds)) p.embeds = fitEmbedTotal(p.embeds.slice(0, DISCORD_LIMITS.embeds).map(fitEmbed));
  if (Array.isArray(p.components)) p.components = fitComponents(p.components);
  const empty = !p.content && !p.embeds?.length && !p.components?.length && !p.files?.length;
  if (empty && "content" in p) p.content = "(empty)";
  return p as T;
}

/** A modal (interaction response type 9) within Discord's limits. */
export function fitModal<T extends object>(modal: T): T {
  const m = { ...modal } as Json;
  m.title = fitText(String(m.title ?? "Form"), DISCORD_LIMITS.modalTitle, "ellipsis");
  m.components = (m.components ?? []).slice(0, 5).map((row: Json) => ({
    ...row,
    components: (row.components ?? []).map((c: Json) => {
      if (c.type !== 4) return c;
      const out: Json = { ...c, label: fitText(String(c.label ?? "Text"), DISCORD_LIMITS.textInputLabel, "ellipsis") };
      if (out.max_length !== undefined)
        out.max_length = Math.min(Math.max(1, out.max_length), DISCORD_LIMITS.textInputMax);
      if (typeof out.value === "string") out.value = fitText(out.value, out.max_length ?? DISCORD_LIMITS.textInputMax);
      if (typeof out.placeholder === "string")
        out.placeholder = fitText(out.placeholder, DISCORD_LIMITS.placeholder, "ellipsis");
      return out;
    }),
  }));
  return m as T;
}

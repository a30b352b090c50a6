import type { ToolDefinition } from "@openassistant/sdk";
import { cutText } from "../text/cut.ts";

/** A tool's own summary on an approval card (a replaced file's diff can be long; the file is attached whole). */
const MAX_SUMMARY_CHARS = 3_000;

/** The tool's own summary of a call for the operator (its `previewInput`), redacted and bounded. */
export function toolSummary(
  def: ToolDefinition,
  input: unknown,
  redact: (text: string) => string,
): { summary?: string } {
  let text: unknown;
  try {
    text = def.previewInput?.(input);
  } catch {
    return {}; // a broken previewInput must not break the call; the fields still show everything
  }
  return typeof text === "string" && text.trim() ? { summary: cutText(redact(text), MAX_SUMMARY_CHARS) } : {};
}

/** Files a tool may show whole on one card: Discord takes 10 per message, the surface adds its own two. */
const MAX_FILES = 8;
/** Characters over all of a card's files: at most 6 MB of UTF-8, under Discord's 10 MiB per upload. */
const MAX_FILES_CHARS = 2_000_000;
/** A plain file name: no folders, no leading dot, a short extension-friendly alphabet. */
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * The tool's files for the approver (its `previewFiles`), redacted. A file with a name that is not
 * a plain file name is left out; past the character budget a file is cut and says so at its end.
 * A broken `previewFiles` leaves the card without files, never breaks the call.
 */
export function toolFiles(
  def: ToolDefinition,
  input: unknown,
  redact: (text: string) => string,
): { files?: Array<{ name: string; text: string }> } {
  let listed: unknown;
  try {
    listed = def.previewFiles?.(input);
  } catch {
    return {};
  }
  if (!Array.isArray(listed)) return {};
  const files: Array<{ name: string; text: string }> = [];
  let room = MAX_FILES_CHARS;
  for (const f of listed.slice(0, MAX_FILES)) {
    if (typeof f?.name !== "string" || typeof f.text !== "string" || !FILE_NAME.test(f.name)) continue;
    const text = redact(f.text);
    const kept = text.length <= room ? text : `${cutText(text, Math.max(0, room))}\n… (cut: too large to show whole)`;
    room -= kept.length;
    files.push({ name: f.name, text: kept });
  }
  return files.length ? { files } : {};
}

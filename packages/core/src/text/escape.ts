/**
 * Characters that change how text looks without being seen: bidi overrides and isolates,
 * zero-width joiners/spaces, other Unicode format characters, C0/C1 controls (except newline and
 * tab), and lone surrogates. Anything an operator must read before approving shows them escaped.
 */

// Cf (format) covers bidi controls (U+202A–U+202E, U+2066–U+2069, U+200E/F, U+061C), zero-width
// characters (U+200B–U+200D, U+2060–U+2064), U+FEFF and tag characters. Controls and lone
// surrogates are matched per code unit (no `u` flag), so a lone surrogate is found too.
// Matching control characters is the point of this pattern.
const CONTROL_OR_LONE_SURROGATE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const FORMAT = /\p{Cf}/gu;

/** Shows every invisible or direction-changing character as a visible `\u{…}` escape. */
export function escapeInvisible(text: string): string {
  if (typeof text !== "string" || text.length === 0) return text;
  return text
    .replace(CONTROL_OR_LONE_SURROGATE, toEscape)
    .replace(FORMAT, (c, offset: number, whole: string) => (isEmojiJoiner(c, offset, whole) ? c : toEscape(c)));
}

const PICTOGRAPHIC_BEFORE = /\p{Extended_Pictographic}[\u{1F3FB}-\u{1F3FF}\uFE0F]?$/u;
const PICTOGRAPHIC_AFTER = /^\p{Extended_Pictographic}/u;

/** A ZWJ between two pictographs is part of one emoji (👨‍👩‍👧); anywhere else it hides. */
function isEmojiJoiner(c: string, offset: number, whole: string): boolean {
  if (c !== "\u200D") return false;
  return (
    PICTOGRAPHIC_BEFORE.test(whole.slice(Math.max(0, offset - 4), offset)) &&
    PICTOGRAPHIC_AFTER.test(whole.slice(offset + 1, offset + 3))
  );
}

/** Whether `text` holds any character `escapeInvisible` would escape. */
export function hasInvisible(text: string): boolean {
  return escapeInvisible(text) !== text;
}

function toEscape(c: string): string {
  const cp = c.codePointAt(0) ?? 0;
  return `\\u{${cp.toString(16).toUpperCase().padStart(4, "0")}}`;
}

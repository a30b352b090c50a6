/**
 * The one place text is cut. Cuts land on grapheme boundaries (an emoji, a ZWJ sequence, a letter
 * with its combining marks stay whole), so no cut text shows half a character or a lone surrogate.
 * Lengths are UTF-16 code units, the unit Discord, SQLite previews and JS strings count in.
 */

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Graphemes longer than this (Zalgo stacks) are cut on a code-point boundary instead. */
const WINDOW = 128;

/** The largest index ≤ `max` that is a grapheme boundary of `text` (a code-point one as a fallback). */
export function graphemeBoundary(text: string, max: number): number {
  if (max >= text.length) return text.length;
  if (max <= 0) return 0;
  const start = Math.max(0, max - WINDOW);
  let boundary = -1;
  // Segment only a window around the cut: a boundary found inside it is a boundary of the whole
  // text when the window starts on one; start at a code-point boundary and check the first cluster.
  const from = isLowSurrogateAt(text, start) ? start - 1 : start;
  for (const { index } of segmenter.segment(text.slice(from, Math.min(text.length, max + WINDOW)))) {
    const at = from + index;
    if (at > max) break;
    if (at > from || from === 0) boundary = at;
  }
  if (boundary > 0) return boundary;
  return isLowSurrogateAt(text, max) ? max - 1 : max;
}

function isLowSurrogateAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c >= 0xdc00 && c <= 0xdfff && i > 0 && isHigh(text.charCodeAt(i - 1));
}
function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

export interface CutOptions {
  /** Text appended when something was cut, given the number of code units left out. */
  readonly marker?: (omitted: number) => string;
}

/** "… 1,240 more characters" */
export function omittedMarker(omitted: number): string {
  return `… ${omitted.toLocaleString("en-US")} more character${omitted === 1 ? "" : "s"}`;
}

/** Short marker for tight places (titles, names). */
export const ELLIPSIS = (): string => "…";

/**
 * `text` if it fits in `max` code units, else its longest grapheme-whole prefix followed by the
 * marker, the whole staying within `max` (when `max` is smaller than the marker, only the prefix).
 */
export function cutText(text: string, max: number, options: CutOptions = {}): string {
  const limit = Math.max(0, Math.floor(max));
  if (text.length <= limit) return text;
  const markerFor = options.marker ?? omittedMarker;
  // The marker's length depends on the count it reports; one refinement settles it.
  let keep = graphemeBoundary(text, Math.max(0, limit - markerFor(text.length - limit).length));
  let marker = markerFor(text.length - keep);
  if (keep + marker.length > limit) {
    keep = graphemeBoundary(text, Math.max(0, limit - marker.length));
    marker = markerFor(text.length - keep);
  }
  if (marker.length > limit) return text.slice(0, graphemeBoundary(text, limit));
  return text.slice(0, keep) + marker;
}

import { cutText, omittedMarker } from "../text/cut.ts";

/** Caps on what a rejected input reports: the model needs the first problems, not 200,000 of them. */
export const REPORT_MAX_ISSUES = 20;
const REPORT_MAX_ISSUE_CHARS = 300;
export const REPORT_MAX_CHARS = 2_000;

interface Issue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** "items.0: expected string; items.1: …; … and 199,980 more issues", at most REPORT_MAX_CHARS. */
export function formatIssues(issues: readonly Issue[]): string {
  const shown = issues.slice(0, REPORT_MAX_ISSUES).map((i) => {
    const path = i.path.length ? i.path.map(String).join(".") : "(input)";
    return cutText(`${path}: ${i.message}`, REPORT_MAX_ISSUE_CHARS);
  });
  const more = issues.length - shown.length;
  const tail = more > 0 ? `; … and ${more.toLocaleString("en-US")} more issue${more === 1 ? "" : "s"}` : "";
  return cutText(shown.join("; "), REPORT_MAX_CHARS - tail.length) + tail;
}

/**
 * `redact(text)` cut to `max`, without redacting megabytes first: the text is pre-cut well past
 * `max` (a secret split by that pre-cut lies beyond the final cut), and the marker counts what
 * was left out of the original.
 */
export function redactBounded(text: string, max: number, redact: (t: string) => string): string {
  if (text.length <= max) return redact(text);
  const pre = text.slice(0, max * 4);
  const dropped = text.length - pre.length;
  const out = redact(pre);
  return out.length <= max && dropped === 0 ? out : cutText(out, max, { marker: (n) => omittedMarker(n + dropped) });
}

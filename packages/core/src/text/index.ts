/** Text rules every surface shares: cutting on grapheme boundaries, escaping invisible characters. */
export { cutText, graphemeBoundary, ELLIPSIS } from "./cut.ts";
export { escapeInvisible, hasInvisible } from "./escape.ts";

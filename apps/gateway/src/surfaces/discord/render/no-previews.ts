/**
 * Discord fetches every bare link in a message to build a preview, without anyone clicking it. A
 * link the model writes could carry data out (prompt injection), so links in answers are wrapped
 * in `<…>` (Discord's "no preview" form). Code blocks and inline code are left as they are.
 */
const CODE = /(```[\s\S]*?(?:```|$)|`[^`\n]*`)/g;
const MASKED_LINK = /\]\((https?:\/\/[^)\s]+)\)/g;
const BARE_LINK = /(?<![<\w])https?:\/\/[^\s<>]*[^\s<>.,;:!?'")\]]/g;

export function suppressLinkPreviews(text: string): string {
  return text
    .split(CODE)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(MASKED_LINK, "](<$1>)").replace(BARE_LINK, "<$&>")))
    .join("");
}

/**
 * The plain-text code-mode protocol, for models whose native tool calls are unreliable (many local
 * models): the model is given no tools; it writes the code it wants run in one fenced block of its
 * reply, and the result comes back as the next user message. The turn loop sees the block as an
 * `execute` call, so approvals, receipts and grounding work the same.
 */

/** Appended to the system prompt in code-block mode. */
export const CODE_BLOCK_INSTRUCTIONS = [
  "How to run code: you have no function-calling tools here. To call `tools.*`, reply with exactly one",
  "fenced TypeScript block, like:",
  "```ts",
  "const items = await tools.example.list({});",
  "return items;",
  "```",
  "It is the body of an async function (await and return work); it is typechecked, then run, and its",
  "result comes back in the next message. Write nothing after the block. When you have what you need,",
  "answer the user in plain text without any ```ts block.",
].join("\n");

/** The languages of a fence taken as code to run. */
const CODE_FENCE = /(^|\n)```(?:ts|typescript|js|javascript|tsx)?[ \t]*\n([\s\S]*?)\n```[ \t]*(?=\n|$)/;

/** The first closed code fence of a reply: the code, and the reply's text before it. */
export function findCodeBlock(text: string): { readonly code: string; readonly before: string } | undefined {
  const match = CODE_FENCE.exec(text);
  if (!match) return undefined;
  const code = match[2]!;
  if (!code.trim()) return undefined;
  return { code, before: text.slice(0, match.index + match[1]!.length).trim() };
}

/**
 * What of a streamed reply may be shown as it arrives: the text before a code fence starts (the code
 * runs as a call, it is not the answer). Trailing backticks are held back until it is clear whether
 * they open a fence.
 */
export function shownPrefix(text: string): string {
  const fence = text.search(/(^|\n)```/);
  if (fence >= 0) return text.slice(0, fence);
  const trailing = /`{1,2}$/.exec(text);
  return trailing ? text.slice(0, trailing.index) : text;
}

/** A tool result as the next user message (the model wrote code, the gateway ran it). */
export function codeResultText(content: string, isError: boolean): string {
  return `${isError ? "Your code did not succeed" : "Result of your code"}:\n${content}`;
}

/** An earlier `execute` call as the model wrote it, to send back in its reply. */
export const codeAsFence = (code: string): string => `\`\`\`ts\n${code}\n\`\`\``;

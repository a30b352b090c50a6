import type {
  ContentBlock,
  ContentBlockParam,
  MessageParam,
  TextBlockParam,
} from "@anthropic-ai/sdk/resources/messages/messages";
import { sanitizeBlock } from "../sessions/repair.ts";

/**
 * Converting between what the Messages API returns and what it accepts back
 * (docs/anthropic-contract.md has the rules and their sources).
 */

/**
 * Response blocks → request params, as the API accepts them back: `thinking` and
 * `redacted_thinking` byte for byte (text and signature / data untouched — an edited block is a
 * 400), text without empty blocks, tool_use with an object input. Server-side block kinds the
 * gateway never asks for are dropped.
 */
export function toParams(blocks: readonly ContentBlock[]): ContentBlockParam[] {
  const out: ContentBlockParam[] = [];
  for (const b of blocks) {
    let param: ContentBlockParam | undefined;
    if (b.type === "thinking") param = { type: "thinking", thinking: b.thinking, signature: b.signature };
    else if (b.type === "redacted_thinking") param = { type: "redacted_thinking", data: b.data };
    else if (b.type === "text") param = { type: "text", text: b.text };
    else if (b.type === "tool_use") param = { type: "tool_use", id: b.id, name: b.name, input: b.input };
    const safe = param && sanitizeBlock(param);
    if (safe) out.push(safe);
  }
  return out;
}

export const isThinking = (b: ContentBlockParam): boolean => b.type === "thinking" || b.type === "redacted_thinking";

/** The answer text of some blocks (thinking is not part of the answer). */
export function textOf(blocks: readonly ContentBlockParam[]): string {
  return blocks
    .filter((b): b is TextBlockParam => b.type === "text")
    .map((b) => b.text)
    .join("\n")
    .trim();
}

/** Readable thinking text (progress updates, summaries); empty when the display omits it. */
export function thinkingTextOf(blocks: readonly ContentBlock[]): string {
  return blocks
    .map((b) => (b.type === "thinking" ? b.thinking.trim() : ""))
    .filter(Boolean)
    .join("\n");
}

/**
 * Thinking blocks of earlier, finished turns left out of the request. The docs require them back
 * only within the tool loop they belong to; leaving them out keeps a request valid after history
 * trimming, a restart, or a `/model` switch (blocks are tied to the model and to the exact prefix
 * before them). Copies; stored history keeps them.
 */
export function withoutThinking(messages: readonly MessageParam[]): MessageParam[] {
  return messages.flatMap((m) => {
    if (m.role !== "assistant" || typeof m.content === "string") return [m];
    const content = m.content.filter((b) => !isThinking(b));
    if (content.length === m.content.length) return [m];
    return content.length ? [{ ...m, content }] : [];
  });
}

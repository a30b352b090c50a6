import type { ContentBlockParam, MessageParam } from "@anthropic-ai/sdk/resources/messages/messages";

export interface TrimOptions {
  /** Approximate token budget for the history (estimated as characters / 4). */
  readonly maxTokens: number;
  readonly maxMessages: number;
}

export interface TrimmedHistory {
  readonly messages: MessageParam[];
  /** How many leading messages were dropped. */
  readonly omitted: number;
}

export const estimateTokens = (value: unknown): number => Math.ceil(JSON.stringify(value).length / 4);

const hasToolResult = (m: MessageParam) =>
  Array.isArray(m.content) && m.content.some((b) => (b as ContentBlockParam).type === "tool_result");

/**
 * Keeps the newest messages that fit the budget. The kept window always starts with a plain user
 * message (never a tool_result whose tool_use was dropped), so tool_use/tool_result pairs are never
 * split. When anything is dropped, a short "earlier conversation omitted" note is prepended to the
 * first kept message (no summarization: the receipts stay queryable, the prose is gone).
 */
export function trimHistory(history: readonly MessageParam[], options: TrimOptions): TrimmedHistory {
  // The newest message (the user's request) is always kept, whatever it costs.
  let start = Math.max(0, history.length - 1);
  let tokens = history.length ? estimateTokens(history[start]!.content) : 0;
  while (start > 0) {
    const cost = estimateTokens(history[start - 1]!.content);
    if (history.length - start >= options.maxMessages || tokens + cost > options.maxTokens) break;
    tokens += cost;
    start--;
  }
  // Move the cut forward to a safe boundary: a user message that carries no tool_result.
  while (start < history.length && (history[start]!.role !== "user" || hasToolResult(history[start]!))) start++;
  if (start === 0) return { messages: [...history], omitted: 0 };
  const kept = history.slice(start);
  if (kept.length === 0) return { messages: [], omitted: history.length };
  const first = kept[0]!;
  const note: ContentBlockParam = {
    type: "text",
    text: `[Earlier conversation omitted: ${start} older message(s) were trimmed to fit the context window.]`,
  };
  const content: ContentBlockParam[] =
    typeof first.content === "string" ? [{ type: "text", text: first.content }] : [...first.content];
  return { messages: [{ ...first, content: [note, ...content] } as MessageParam, ...kept.slice(1)], omitted: start };
}

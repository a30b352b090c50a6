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
 * Where the kept window starts: the newest messages that fit the budget, the cut moved forward to a
 * plain user message (never a tool_result whose tool_use was dropped), so tool_use/tool_result
 * pairs are never split. The newest message (the user's request) is always kept.
 */
export function keptFrom(history: readonly MessageParam[], options: TrimOptions): number {
  let start = Math.max(0, history.length - 1);
  let tokens = history.length ? estimateTokens(history[start]!.content) : 0;
  while (start > 0) {
    const cost = estimateTokens(history[start - 1]!.content);
    if (history.length - start >= options.maxMessages || tokens + cost > options.maxTokens) break;
    tokens += cost;
    start--;
  }
  while (start < history.length && (history[start]!.role !== "user" || hasToolResult(history[start]!))) start++;
  return start;
}

/**
 * Keeps the newest messages that fit the budget (see keptFrom). When anything is dropped, a short
 * "earlier conversation omitted" note is prepended to the first kept message.
 */
export function trimHistory(history: readonly MessageParam[], options: TrimOptions): TrimmedHistory {
  const start = keptFrom(history, options);
  if (start === 0) return { messages: [...history], omitted: 0 };
  const kept = history.slice(start);
  if (kept.length === 0) return { messages: [], omitted: history.length };
  return {
    messages: withNote(
      kept,
      `[Earlier conversation omitted: ${start} older message(s) were trimmed to fit the context window.]`,
    ),
    omitted: start,
  };
}

/** The note as a text block first in the first message (a user message of its own when that one is not). */
export function withNote(messages: readonly MessageParam[], text: string): MessageParam[] {
  const note: ContentBlockParam = { type: "text", text };
  const first = messages[0];
  if (!first || first.role !== "user") return [{ role: "user", content: [note] }, ...messages];
  const content: ContentBlockParam[] =
    typeof first.content === "string" ? [{ type: "text", text: first.content }] : [...first.content];
  return [{ ...first, content: [note, ...content] } as MessageParam, ...messages.slice(1)];
}

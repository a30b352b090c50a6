import type { ContentBlock, Message, StopReason } from "@anthropic-ai/sdk/resources/messages/messages";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { ToolCallMode } from "../provider.ts";
import { findCodeBlock, shownPrefix } from "./code-block.ts";

/**
 * A streamed Chat Completion gathered into the turn loop's Message: text, native tool calls as
 * `tool_use` blocks (arguments parsed; malformed JSON is passed on so the loop tells the model), or
 * in code-block mode the reply's first fenced block as an `execute` call.
 */
export interface ChatStreamCollector {
  push(chunk: ChatCompletionChunk): void;
  /** The whole reply as a Message (throws when the stream ended without a finish_reason). */
  message(): Message;
}

/** finish_reason → stop_reason (https://platform.openai.com/docs/api-reference/chat/object). */
const STOP_REASONS: Record<string, StopReason> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  function_call: "tool_use",
  content_filter: "refusal",
};

interface PartialCall {
  id?: string;
  name?: string;
  arguments: string;
}

export function collectChatStream(mode: ToolCallMode, onText?: (delta: string) => void): ChatStreamCollector {
  let id = "";
  let model = "";
  let text = "";
  let shown = 0;
  let finish: string | null = null;
  let usage: { prompt_tokens?: number; completion_tokens?: number } | undefined;
  const calls: PartialCall[] = [];

  const show = () => {
    const visible = mode === "code-block" ? shownPrefix(text) : text;
    if (visible.length > shown) {
      onText?.(visible.slice(shown));
      shown = visible.length;
    }
  };

  return {
    push(chunk) {
      id ||= chunk.id;
      model ||= chunk.model;
      if (chunk.usage) usage = chunk.usage;
      for (const choice of chunk.choices ?? []) {
        const delta = choice.delta ?? {};
        if (typeof delta.content === "string" && delta.content) {
          text += delta.content;
          show();
        }
        for (const call of delta.tool_calls ?? []) {
          const at = (calls[call.index] ??= { arguments: "" });
          if (call.id) at.id = call.id;
          if (call.function?.name) at.name = (at.name ?? "") + call.function.name;
          if (call.function?.arguments) at.arguments += call.function.arguments;
        }
        if (choice.finish_reason) finish = choice.finish_reason;
      }
    },
    message() {
      if (!finish) throw new Error("the stream ended before the model finished its reply (no finish_reason was sent)");
      const content: ContentBlock[] = [];
      let stop: StopReason = STOP_REASONS[finish] ?? "end_turn";
      const block = mode === "code-block" ? findCodeBlock(text) : undefined;
      const answer = block ? block.before : text.trim();
      if (answer) content.push({ type: "text", text: answer, citations: null });
      if (block) {
        content.push(toolUse(`call_code_${id || "0"}_${content.length}`, "execute", { code: block.code }));
        if (stop === "end_turn") stop = "tool_use";
      }
      for (const [i, call] of calls.entries()) {
        if (!call) continue;
        content.push(toolUse(call.id ?? `call_${i}`, call.name ?? "", parseArguments(call.arguments)));
      }
      if (calls.length && stop === "end_turn") stop = "tool_use";
      return {
        id: id || "chatcmpl",
        type: "message",
        role: "assistant",
        model,
        content,
        stop_reason: stop,
        stop_sequence: null,
        stop_details: null,
        container: null,
        usage: {
          input_tokens: usage?.prompt_tokens ?? 0,
          output_tokens: usage?.completion_tokens ?? 0,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          cache_creation: null,
          server_tool_use: null,
          service_tier: null,
        },
      } as unknown as Message;
    },
  };
}

function toolUse(id: string, name: string, input: unknown): ContentBlock {
  return { type: "tool_use", id, name, input } as ContentBlock;
}

/** The model's arguments as an object; malformed JSON becomes a value execute's check names. */
function parseArguments(raw: string): unknown {
  if (!raw.trim()) return {};
  try {
    return JSON.parse(raw);
  } catch {
    return `malformed JSON arguments: ${raw.slice(0, 200)}`;
  }
}

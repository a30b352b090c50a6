import type {
  ContentBlockParam,
  MessageParam,
  ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages/messages";
import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import type { ModelRequest } from "../../agent/request.ts";
import type { ToolCallMode } from "../provider.ts";
import { CODE_BLOCK_INSTRUCTIONS, codeAsFence, codeResultText } from "./code-block.ts";

/** Told in code-block mode on a round that must answer in text (native mode says `tool_choice: none`). */
const ANSWER_NOW = "This reply must be the answer to the user in plain text: do not write a code block.";

/**
 * A turn's request (the Messages API's shape) as a Chat Completions request, with only fields
 * every OpenAI-compatible server accepts (docs/models.md): the system blocks as one system message,
 * thinking blocks left out (they belong to Claude), `tool_use` / `tool_result` as `tool_calls` and
 * `tool` messages (native) or as fenced code and a user message with the result (code-block).
 * Prompt-caching markers, thinking and effort settings have no counterpart and are not sent.
 */
export function toChatRequest(params: ModelRequest, mode: ToolCallMode): ChatCompletionCreateParamsStreaming {
  const answerNow = params.tool_choice?.type === "none";
  const system = [
    typeof params.system === "string" ? params.system : (params.system ?? []).map((b) => b.text).join("\n\n"),
    ...(mode === "code-block" ? [CODE_BLOCK_INSTRUCTIONS, ...(answerNow ? [ANSWER_NOW] : [])] : []),
  ]
    .filter((t) => t.trim())
    .join("\n\n");
  const messages: ChatCompletionMessageParam[] = system ? [{ role: "system", content: system }] : [];
  for (const m of params.messages) messages.push(...toChatMessages(m, mode));
  const tools: ChatCompletionTool[] =
    mode === "native"
      ? (params.tools ?? []).flatMap((t) =>
          "input_schema" in t
            ? [
                {
                  type: "function" as const,
                  function: {
                    name: t.name,
                    ...(t.description ? { description: t.description } : {}),
                    parameters: t.input_schema as Record<string, unknown>,
                  },
                },
              ]
            : [],
        )
      : [];
  return {
    model: params.model,
    messages,
    max_tokens: params.max_tokens,
    stream: true,
    // OpenAI and Ollama send the usage in a last chunk only when asked (docs/models.md).
    stream_options: { include_usage: true },
    ...(tools.length ? { tools, tool_choice: answerNow ? ("none" as const) : ("auto" as const) } : {}),
  };
}

const textOfBlocks = (blocks: readonly ContentBlockParam[]): string =>
  blocks
    .map((b) => (b.type === "text" ? b.text : ""))
    .filter((t) => t.trim())
    .join("\n");

function resultText(block: ToolResultBlockParam): string {
  const c = block.content;
  const text =
    typeof c === "string" ? c : (c ?? []).map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("\n");
  return text || (block.is_error ? "(error)" : "(no output)");
}

function toChatMessages(m: MessageParam, mode: ToolCallMode): ChatCompletionMessageParam[] {
  if (typeof m.content === "string") return m.content.trim() ? [{ role: m.role, content: m.content }] : [];
  if (m.role === "assistant") {
    const uses = m.content.filter((b) => b.type === "tool_use");
    let text = textOfBlocks(m.content);
    if (mode === "code-block") {
      for (const u of uses)
        text += `${text ? "\n\n" : ""}${codeAsFence(String((u.input as { code?: unknown })?.code ?? ""))}`;
      return text ? [{ role: "assistant", content: text }] : [];
    }
    const calls: ChatCompletionMessageFunctionToolCall[] = uses.map((u) => ({
      id: u.id,
      type: "function",
      function: { name: u.name, arguments: JSON.stringify(u.input ?? {}) },
    }));
    if (!text && !calls.length) return [];
    return [{ role: "assistant", content: text || null, ...(calls.length ? { tool_calls: calls } : {}) }];
  }
  const results = m.content.filter((b) => b.type === "tool_result") as ToolResultBlockParam[];
  const text = textOfBlocks(m.content);
  if (mode === "code-block") {
    const parts = [...results.map((r) => codeResultText(resultText(r), r.is_error === true)), ...(text ? [text] : [])];
    return parts.length ? [{ role: "user", content: parts.join("\n\n") }] : [];
  }
  // Tool messages answer the assistant's tool_calls right after it; the user's own text follows them.
  return [
    ...results.map((r) => ({ role: "tool" as const, tool_call_id: r.tool_use_id, content: resultText(r) })),
    ...(text ? [{ role: "user" as const, content: text }] : []),
  ];
}

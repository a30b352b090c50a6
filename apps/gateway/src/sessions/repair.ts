import type {
  ContentBlockParam,
  MessageParam,
  ToolResultBlockParam,
  ToolUseBlockParam,
} from "@anthropic-ai/sdk/resources/messages/messages";

/** Text of the tool_result put in for a stored tool_use that has none. */
const MISSING_RESULT_TEXT = "No result was recorded for this call (the conversation history was incomplete).";

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * One content block as the Messages API accepts it, or undefined when it must be dropped:
 * empty / whitespace-only text blocks are rejected by the API, and a tool_use input must be an
 * object (a model that sent something else keeps it under `invalid_input`, for the record).
 */
export function sanitizeBlock(block: ContentBlockParam): ContentBlockParam | undefined {
  if (block.type === "text") return typeof block.text === "string" && block.text.trim() ? block : undefined;
  if (block.type === "tool_use" && !isPlainObject(block.input))
    return { ...block, input: block.input === undefined ? {} : { invalid_input: block.input } };
  return block;
}

/**
 * Makes stored history valid for the next request, whatever a crash, an old version or a hand
 * edit left in the database (the stored rows are not changed):
 * - content becomes blocks; empty text blocks go, messages left without content go;
 * - every assistant tool_use gets a tool_result in the very next user message (an `is_error`
 *   "no result was recorded" one when it is missing; a user message is put in when there is none);
 * - tool_results that answer no tool_use of the message before are dropped; tool_results come
 *   first in their message, as the API requires.
 */
export function repairHistory(history: readonly MessageParam[]): MessageParam[] {
  const cleaned: MessageParam[] = [];
  for (const m of history) {
    if (m.role !== "user" && m.role !== "assistant") continue;
    const raw: ContentBlockParam[] =
      typeof m.content === "string" ? [{ type: "text", text: m.content }] : Array.isArray(m.content) ? m.content : [];
    const blocks = raw
      .filter((b) => isPlainObject(b) && typeof b.type === "string")
      .map(sanitizeBlock)
      .filter((b): b is ContentBlockParam => b !== undefined);
    // tool_use only in assistant messages, tool_result only in user messages.
    const allowed = blocks.filter((b) => (m.role === "assistant" ? b.type !== "tool_result" : b.type !== "tool_use"));
    cleaned.push({ role: m.role, content: allowed });
  }

  const out: MessageParam[] = [];
  const seenToolUseIds = new Set<string>();
  for (let i = 0; i < cleaned.length; i++) {
    const m = cleaned[i]!;
    let blocks = m.content as ContentBlockParam[];
    if (m.role === "assistant") {
      // Duplicate tool_use ids are rejected by the API: keep the first.
      blocks = blocks.filter((b) => b.type !== "tool_use" || (!seenToolUseIds.has(b.id) && seenToolUseIds.add(b.id)));
      if (blocks.length === 0) continue;
      out.push({ role: "assistant", content: blocks });
      const uses = blocks.filter((b): b is ToolUseBlockParam => b.type === "tool_use");
      if (uses.length === 0) continue;
      const next = cleaned[i + 1];
      const nextBlocks = next?.role === "user" ? (next.content as ContentBlockParam[]) : [];
      const results = nextBlocks.filter((b): b is ToolResultBlockParam => b.type === "tool_result");
      const ordered: ContentBlockParam[] = uses.map(
        (u) =>
          results.find((r) => r.tool_use_id === u.id) ?? {
            type: "tool_result",
            tool_use_id: u.id,
            is_error: true,
            content: MISSING_RESULT_TEXT,
          },
      );
      const rest = nextBlocks.filter((b) => b.type !== "tool_result");
      out.push({ role: "user", content: [...ordered, ...rest] });
      if (next?.role === "user") i++;
      continue;
    }
    // A user message not right after a tool_use: tool_results in it answer nothing.
    blocks = blocks.filter((b) => b.type !== "tool_result");
    if (blocks.length === 0) continue;
    out.push({ role: "user", content: blocks });
  }
  return out;
}

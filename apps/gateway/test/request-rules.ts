/**
 * The Messages API's structural rules for a request's `messages`, as the real API enforces them
 * (the fake server accepts anything, so tests check the recorded requests with this):
 * non-empty content, no empty / whitespace-only text blocks, tool_use input is an object, tool_use
 * ids are unique, every tool_use is answered by a tool_result in the very next (user) message,
 * tool_results come first in that message and answer a tool_use of the message before, and the
 * request ends on a user message. Returns the violations (empty = valid).
 */
export function requestViolations(body: { messages?: Array<{ role: string; content: unknown }> }): string[] {
  const problems: string[] = [];
  const messages = body.messages ?? [];
  if (messages.length === 0) problems.push("messages is empty");
  if (messages[0] && messages[0].role !== "user") problems.push("messages.0 must be a user message");
  if (messages.at(-1) && messages.at(-1)!.role !== "user") problems.push("the last message must be a user message");
  const seenIds = new Set<string>();
  messages.forEach((m, i) => {
    const blocks =
      typeof m.content === "string"
        ? [{ type: "text", text: m.content }]
        : (m.content as Array<Record<string, unknown>>);
    if (!Array.isArray(blocks) || blocks.length === 0) {
      problems.push(`messages.${i}: content is empty`);
      return;
    }
    blocks.forEach((b, j) => {
      if (b.type === "text" && (typeof b.text !== "string" || !b.text.trim()))
        problems.push(`messages.${i}.content.${j}: text block is empty or whitespace`);
      if (b.type === "tool_use") {
        if (m.role !== "assistant") problems.push(`messages.${i}.content.${j}: tool_use in a ${m.role} message`);
        if (typeof b.input !== "object" || b.input === null || Array.isArray(b.input))
          problems.push(`messages.${i}.content.${j}: tool_use input is not an object`);
        if (seenIds.has(String(b.id)))
          problems.push(`messages.${i}.content.${j}: duplicate tool_use id ${String(b.id)}`);
        seenIds.add(String(b.id));
      }
    });
    const uses = blocks.filter((b) => b.type === "tool_use").map((b) => String(b.id));
    if (uses.length) {
      const next = messages[i + 1];
      const nextBlocks = next && Array.isArray(next.content) ? (next.content as Array<Record<string, unknown>>) : [];
      const answered = new Set(nextBlocks.filter((b) => b.type === "tool_result").map((b) => String(b.tool_use_id)));
      for (const id of uses)
        if (!answered.has(id)) problems.push(`messages.${i}: tool_use ${id} has no tool_result in messages.${i + 1}`);
    }
    const results = blocks.filter((b) => b.type === "tool_result");
    if (results.length) {
      const firstOther = blocks.findIndex((b) => b.type !== "tool_result");
      const lastResult = blocks.map((b) => b.type).lastIndexOf("tool_result");
      if (firstOther >= 0 && firstOther < lastResult)
        problems.push(`messages.${i}: tool_result blocks must come first`);
      const prev = messages[i - 1];
      const prevBlocks =
        prev && prev.role === "assistant" && Array.isArray(prev.content)
          ? (prev.content as Array<Record<string, unknown>>)
          : [];
      const ids = new Set(prevBlocks.filter((b) => b.type === "tool_use").map((b) => String(b.id)));
      for (const r of results)
        if (!ids.has(String(r.tool_use_id)))
          problems.push(`messages.${i}: tool_result ${String(r.tool_use_id)} answers no tool_use of messages.${i - 1}`);
    }
  });
  return problems;
}

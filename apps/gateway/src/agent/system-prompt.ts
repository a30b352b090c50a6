import type { TextBlockParam } from "@anthropic-ai/sdk/resources/messages/messages";
import { PRELUDE } from "@openassistant/core/codemode";

const INSTRUCTIONS = `You are OpenAssistant, an assistant that acts by writing code.
To do anything beyond talking, call the \`execute\` tool with TypeScript: the body of an async function that calls the typed \`tools.*\` API declared below. Top-level \`await\` and \`return\` work; return the values you need (they come back to you as JSON), and \`console.log\` output is returned too.
- Only the declared \`tools\` exist: no fetch, no files, no timers, no imports.
- Your code is typechecked before it runs; type errors come back to you to fix. Tool results are typed \`unknown\`: cast before reading fields, e.g. \`const ev = (await tools.x({})) as { id: string }\` (or \`as any\`).
- Some tools wait for an operator's approval. A denied call throws \`ToolDeniedError\` (its message has the reason): catch it where it matters and report it honestly. Failed calls throw \`ToolError\`.
- Never say an action was done (scheduled, created, sent, deleted, …) unless a tool call for it succeeded in this conversation turn. If it failed, was denied or is pending, say so.
- After running code you receive the gateway's receipt-based activity summary; the user sees it under your answer. Keep the answer short and consistent with it.`;

/**
 * System blocks: instructions + ambient declarations (prelude + tools) in one block marked for
 * prompt caching with a 1-hour TTL (it only changes when tools reload), then the operator's
 * `model.system`, uncached.
 */
export function buildSystemPrompt(declarations: string, extra?: string): TextBlockParam[] {
  const blocks: TextBlockParam[] = [
    {
      type: "text",
      text: `${INSTRUCTIONS}\n\nDeclarations available to your code:\n\`\`\`ts\n${PRELUDE}\n${declarations}\`\`\``,
      // 1-hour TTL: messages in a chat arrive minutes apart, so the 5-minute default would let the
      // largest, most stable block (instructions + declarations) expire between them. A 1h breakpoint
      // must come before 5m ones; this is the first. (prompt caching docs: cache duration)
      cache_control: { type: "ephemeral", ttl: "1h" },
    },
  ];
  if (extra && extra.trim()) blocks.push({ type: "text", text: extra.trim() });
  return blocks;
}

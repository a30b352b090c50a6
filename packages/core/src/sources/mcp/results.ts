import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/**
 * What the model's code gets back from an MCP tool call:
 * - `structuredContent` when the server sent it (checked against the tool's `outputSchema` by the
 *   SDK with the bounded validator, output-validator.ts; the declaration types it);
 * - else one text item: the text, parsed when it is a JSON object or array (most servers return
 *   their data as JSON text; the model's code should not have to `JSON.parse` it);
 * - else the content items as the server sent them (images, resources, several texts).
 * `isError` results are thrown with their text, naming the tool.
 */
export function toolResultValue(tool: string, result: CallToolResult): unknown {
  const content = Array.isArray(result.content) ? result.content : [];
  if (result.isError) {
    const text = content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");
    throw new Error(text || `${tool} reported an error`);
  }
  if (result.structuredContent !== undefined) return result.structuredContent;
  const only = content.length === 1 ? content[0] : undefined;
  if (only?.type === "text") return jsonOrText(only.text);
  return content;
}

/** `text` parsed when it is a JSON object or array, else the text itself. */
export function jsonOrText(text: string): unknown {
  const start = text.trimStart()[0];
  if (start !== "{" && start !== "[") return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

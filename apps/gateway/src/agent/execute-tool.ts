import type { Tool, ToolUseBlock } from "@anthropic-ai/sdk/resources/messages/messages";

const EXECUTE_TOOL_NAME = "execute";

/**
 * Longest snippet accepted. Typecheck time grows faster than code size (thousands of statements
 * take seconds), and a snippet that calls tools never needs to be this long.
 */
export const MAX_CODE_CHARS = 200_000;

/** The model's only tool. */
export const EXECUTE_TOOL: Tool = {
  name: EXECUTE_TOOL_NAME,
  description:
    "Run TypeScript (the body of an async function) that calls the declared `tools.*` API. Return the values you need; console output is captured. The code is typechecked first.",
  input_schema: {
    type: "object",
    properties: { code: { type: "string", description: "TypeScript function body; may use await and return." } },
    required: ["code"],
  },
};

/** Validates a tool_use block's input; the error text goes back to the model as the tool_result. */
export function readExecuteInput(block: ToolUseBlock): { ok: true; code: string } | { ok: false; error: string } {
  if (block.name !== EXECUTE_TOOL_NAME)
    return {
      ok: false,
      error: `Unknown tool "${block.name}". The only tool is "execute" with input { "code": string }.`,
    };
  const input = block.input as unknown;
  if (typeof input !== "object" || input === null || Array.isArray(input))
    return {
      ok: false,
      error: `Invalid input for execute: expected an object { "code": string }, got ${describe(input)}.`,
    };
  const code = (input as { code?: unknown }).code;
  if (code === undefined)
    return {
      ok: false,
      error: 'Invalid input for execute: the "code" field is missing. Send { "code": "<TypeScript>" }.',
    };
  if (typeof code !== "string")
    return { ok: false, error: `Invalid input for execute: "code" must be a string, got ${describe(code)}.` };
  if (code.trim() === "") return { ok: false, error: 'Invalid input for execute: "code" is empty.' };
  if (code.length > MAX_CODE_CHARS)
    return {
      ok: false,
      error: `Invalid input for execute: "code" is ${code.length} characters; the limit is ${MAX_CODE_CHARS}. Send shorter code: keep data in tool calls, not in the snippet.`,
    };
  return { ok: true, code };
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolDefinition, ToolTree } from "@openassistant/sdk";
import type { CallOutcome } from "@openassistant/core/codemode";
import { cutText } from "@openassistant/core/text";
import { flattenToolTree, matchToolPattern } from "@openassistant/core/tools";
import { z } from "zod";

/** A tool as an MCP client lists it (the `tools/list` result's entries). */
interface McpListedTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: { readonly type: "object"; readonly [key: string]: unknown };
  readonly annotations: { readonly readOnlyHint: boolean; readonly idempotentHint: boolean };
}

/** What a call answers to the MCP client. */
type McpCallResult = CallToolResult;

/** The text of one result crosses at most this many characters (the sandbox already caps a return value at 256 KiB). */
const MAX_RESULT_CHARS = 100_000;
/** Descriptions are the tool authors' text; long ones are cut like the model's declarations would be unreadable. */
const MAX_DESCRIPTION_CHARS = 4_000;

/** The tools a client may use: in the tree, allowed by `mcpServer.tools`, and by the client's own patterns when it has some. */
export function visibleTools(
  tree: ToolTree,
  served: readonly string[],
  clientTools: readonly string[] | undefined,
): Map<string, ToolDefinition> {
  const out = new Map<string, ToolDefinition>();
  for (const { path, definition } of flattenToolTree(tree)) {
    if (!served.some((p) => matchToolPattern(p, path))) continue;
    if (clientTools && !clientTools.some((p) => matchToolPattern(p, path))) continue;
    out.set(path, definition);
  }
  return out;
}

const schemas = new WeakMap<object, McpListedTool["inputSchema"]>();

/** The JSON Schema of a tool's input, generated from its zod schema (what the invoker validates against). */
function inputSchemaOf(definition: ToolDefinition): McpListedTool["inputSchema"] {
  let schema = schemas.get(definition.args);
  if (!schema) {
    const { $schema: _, ...json } = z.toJSONSchema(definition.args, { io: "input", unrepresentable: "any" }) as Record<
      string,
      unknown
    >;
    schema = { ...json, type: "object" };
    schemas.set(definition.args, schema);
  }
  return schema;
}

/** A tool as `tools/list` shows it; its description passes the gateway's redactor like everything that leaves. */
export function listedTool(path: string, definition: ToolDefinition, redact: (text: string) => string): McpListedTool {
  const approval =
    definition.approval === "required" ? "\n\n(Each call waits for an operator's approval on the gateway.)" : "";
  return {
    name: path,
    description: cutText(redact(definition.description), MAX_DESCRIPTION_CHARS) + approval,
    inputSchema: inputSchemaOf(definition),
    annotations: { readOnlyHint: definition.readOnly, idempotentHint: definition.idempotent },
  };
}

/**
 * The one-call snippet the runner runs for an MCP call: the same crossing a model's
 * `tools.x.y(input)` makes. The input goes through `JSON.parse` (an object literal would turn a
 * `__proto__` key into the prototype). `path` is a tool path, whose segments are identifiers.
 */
export function callSnippet(client: string, path: string, inputJson: string): string {
  return `// MCP client "${client}" calls tools.${path}\nreturn await tools.${path}(JSON.parse(${JSON.stringify(inputJson)}));`;
}

/** The run of one MCP call, as its result: the value's text, or an error saying why the call did not succeed. */
export function callResult(
  path: string,
  run: {
    readonly ok: boolean;
    readonly valueJson: string | undefined;
    readonly calls: readonly CallOutcome[];
    readonly error?: { readonly name: string; readonly message: string };
  },
): McpCallResult {
  const call = run.calls.find((c) => c.toolPath === path);
  if (call?.status === "denied") {
    const by = call.decidedBy ? ` by ${call.decidedBy}` : "";
    return errorResult(`${path} was denied${by}: ${call.reason ?? "no reason given"}`);
  }
  if (call?.status === "failed") return errorResult(`${path} failed: ${call.error ?? "no error message"}`);
  if (!run.ok) return errorResult(`${path} did not run: ${run.error?.name}: ${run.error?.message}`);
  return { content: [{ type: "text", text: cutText(valueText(run.valueJson), MAX_RESULT_CHARS) }] };
}

const errorResult = (text: string): McpCallResult => ({
  content: [{ type: "text", text: cutText(text, MAX_RESULT_CHARS) }],
  isError: true,
});

/** A string result as itself; anything else as its JSON; nothing as an empty text. */
function valueText(valueJson: string | undefined): string {
  if (valueJson === undefined) return "";
  try {
    const value: unknown = JSON.parse(valueJson);
    return typeof value === "string" ? value : valueJson;
  } catch {
    return valueJson;
  }
}

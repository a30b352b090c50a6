import type { ToolTree } from "@openassistant/sdk";
import { jsonSchemaTool } from "../json-schema-tool.ts";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { cutText, ELLIPSIS } from "../../text/cut.ts";
import { callableName } from "../../tools/names.ts";
import { prepareJsonSchema } from "../schema-limits.ts";
import { DESCRIPTION_LIMIT, refusalOf, SOURCE_LIMITS, SourceBudget } from "../source-budget.ts";
import { TimeSlicer } from "../time-slice.ts";
import type { McpConnection } from "./connection.ts";
import { promptTools, resourceTools } from "./resources.ts";

/**
 * An MCP server's tools as a tool tree: typed from each `inputSchema`, validated before the call,
 * `readOnlyHint: true` → approval "auto" and read-only (no commit point), anything else "required"
 * (operator rules still apply); `idempotentHint: true` → idempotent (a call cut off by a restart may
 * run again). Validators are built on a tool's first call (json-schema-tool.ts).
 */
export async function mcpToolTree(
  connection: McpConnection,
  tools: readonly Tool[],
  budget: SourceBudget = new SourceBudget(),
  offers: { readonly resources?: boolean; readonly prompts?: boolean } = {},
): Promise<ToolTree> {
  const tree: Record<string, unknown> = {};
  const used = new Set<string>();
  const slicer = new TimeSlicer();
  const outputs = new OutputBudget();
  for (const tool of tools) {
    await slicer.pause();
    // The server's tool list is someone else's: a schema past a limit costs that tool only.
    const refusal = refusalOf(tool);
    if (!budget.admit(String(tool.name), tool.inputSchema, refusal)) continue;
    let name = callableName(tool.name).replace(/\./g, "_") || "tool";
    for (let n = 2; used.has(name); n++) name = `${callableName(tool.name).replace(/\./g, "_")}${n}`;
    used.add(name);
    const description = cutText(
      [tool.title && tool.title !== tool.name ? tool.title : undefined, tool.description].filter(Boolean).join(": ") ||
        `${connection.name} tool ${tool.name}`,
      DESCRIPTION_LIMIT,
      { marker: ELLIPSIS },
    );
    Object.defineProperty(tree, name, {
      enumerable: true,
      value: jsonSchemaTool({
        description,
        approval: tool.annotations?.readOnlyHint === true ? "auto" : "required",
        readOnly: tool.annotations?.readOnlyHint === true,
        idempotent: tool.annotations?.idempotentHint === true,
        inputSchema: tool.inputSchema,
        // Typed only when the schema fits the limits; the SDK checks structuredContent against it either way.
        ...(tool.outputSchema && refusal?.stage !== "output" && outputs.fits(tool.outputSchema)
          ? { outputSchema: tool.outputSchema }
          : {}),
        run: (input, call) => connection.callTool(tool.name, input, call),
      }),
    });
  }
  // `$` never starts a name made from a server's tool name (callableName), so these never clash.
  if (offers.resources)
    Object.defineProperty(tree, "$resources", { enumerable: true, value: resourceTools(connection) });
  if (offers.prompts) Object.defineProperty(tree, "$prompts", { enumerable: true, value: promptTools(connection) });
  return tree as ToolTree;
}

/**
 * Output schemas typed in the declarations: each within the schema limits, all of them within the
 * source's node limit. One past a limit is not an error: the tool's result is typed `unknown`.
 */
class OutputBudget {
  private nodes = 0;
  fits(schema: unknown): boolean {
    const prepared = prepareJsonSchema(schema);
    if (!prepared.ok || this.nodes + prepared.nodes > SOURCE_LIMITS.nodes) return false;
    this.nodes += prepared.nodes;
    return true;
  }
}

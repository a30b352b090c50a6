import type { ToolTree } from "@openassistant/sdk";
import { jsonSchemaTool } from "../json-schema-tool.ts";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { cutText, ELLIPSIS } from "../../text/cut.ts";
import { callableName } from "../../tools/names.ts";
import { DESCRIPTION_LIMIT, SourceBudget } from "../source-budget.ts";
import { TimeSlicer } from "../time-slice.ts";
import type { McpConnection } from "./connection.ts";

/**
 * An MCP server's tools as a tool tree: typed from each `inputSchema`, validated before the call,
 * `readOnlyHint: true` → approval "auto" and read-only (no commit point), anything else "required"
 * (operator rules still apply). Validators are built on a tool's first call (json-schema-tool.ts).
 */
export async function mcpToolTree(
  connection: McpConnection,
  tools: readonly Tool[],
  budget: SourceBudget = new SourceBudget(),
): Promise<ToolTree> {
  const tree: Record<string, unknown> = {};
  const used = new Set<string>();
  const slicer = new TimeSlicer();
  for (const tool of tools) {
    await slicer.pause();
    // The server's tool list is someone else's: a schema past a limit costs that tool only.
    if (!budget.admit(String(tool.name), tool.inputSchema)) continue;
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
        inputSchema: tool.inputSchema,
        run: (input, call) => connection.callTool(tool.name, input, call?.signal),
      }),
    });
  }
  return tree as ToolTree;
}

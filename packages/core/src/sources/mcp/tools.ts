import type { ToolTree } from "@openassistant/sdk";
import { jsonSchemaTool } from "../json-schema-tool.ts";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { callableName } from "../../tools/names.ts";
import type { McpConnection } from "./connection.ts";

/**
 * An MCP server's tools as a tool tree: typed from each `inputSchema`, validated before the call,
 * `readOnlyHint: true` → approval "auto" and read-only (no commit point), anything else "required"
 * (operator rules still apply). Validators are built on a tool's first call (json-schema-tool.ts).
 */
export function mcpToolTree(connection: McpConnection, tools: readonly Tool[]): ToolTree {
  const tree: Record<string, unknown> = {};
  const used = new Set<string>();
  for (const tool of tools) {
    let name = callableName(tool.name).replace(/\./g, "_") || "tool";
    for (let n = 2; used.has(name); n++) name = `${callableName(tool.name).replace(/\./g, "_")}${n}`;
    used.add(name);
    const description =
      [tool.title && tool.title !== tool.name ? tool.title : undefined, tool.description].filter(Boolean).join(": ") ||
      `${connection.name} tool ${tool.name}`;
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

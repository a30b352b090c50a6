import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { LocalTool } from "./tools.ts";

/** A local MCP server started over stdio (as in an editor's MCP config). */
export interface McpServerSpec {
  readonly command: string;
  readonly args?: readonly string[];
  readonly env?: Record<string, string>;
  readonly cwd?: string;
  /** Prefix of its tools' names on the gateway (`<prefix>_<tool>`); default "mcp". */
  readonly prefix?: string;
}

export interface McpBridge {
  readonly tools: readonly LocalTool[];
  close(): Promise<void>;
}

/**
 * Starts the server, lists its tools and turns each into a client tool named `<prefix>_<name>`
 * (characters the gateway does not take in a name become `_`): a call is the server's `tools/call`,
 * its structured content (or the one text item, parsed when it is JSON) the result, `isError` a failure.
 */
export async function startMcpBridge(spec: McpServerSpec): Promise<McpBridge> {
  const client = new Client({ name: "openassistant-client", version: "0.1.0" });
  const transport = new StdioClientTransport({
    command: spec.command,
    args: [...(spec.args ?? [])],
    ...(spec.env ? { env: spec.env } : {}),
    ...(spec.cwd ? { cwd: spec.cwd } : {}),
    stderr: "ignore",
  });
  await client.connect(transport);
  const prefix = spec.prefix ?? "mcp";
  const listed = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    listed.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  const tools: LocalTool[] = listed.map((t) => ({
    name: bridgedName(prefix, t.name),
    description: t.description?.trim() || `${prefix} tool ${t.name}`,
    inputSchema: t.inputSchema as Record<string, unknown>,
    run: async (input, ctx) => {
      const result = await client.callTool({ name: t.name, arguments: input }, undefined, { signal: ctx.signal });
      return resultValue(t.name, result as { content?: unknown; structuredContent?: unknown; isError?: boolean });
    },
  }));
  return { tools, close: () => client.close() };
}

/** `everything` + `get-sum` → `everything_get_sum`. */
export function bridgedName(prefix: string, name: string): string {
  return `${prefix}_${name}`.replace(/[^A-Za-z0-9_$]/g, "_").replace(/^(\d)/, "_$1");
}

function resultValue(
  tool: string,
  result: { content?: unknown; structuredContent?: unknown; isError?: boolean },
): unknown {
  const content = Array.isArray(result.content) ? (result.content as Array<{ type: string; text?: string }>) : [];
  if (result.isError) throw new Error(content.map((c) => c.text ?? `[${c.type}]`).join("\n") || `${tool} failed`);
  if (result.structuredContent !== undefined) return result.structuredContent;
  if (content.length === 1 && content[0]!.type === "text") {
    const text = content[0]!.text ?? "";
    try {
      return /^\s*[[{]/.test(text) ? JSON.parse(text) : text;
    } catch {
      return text;
    }
  }
  return content;
}

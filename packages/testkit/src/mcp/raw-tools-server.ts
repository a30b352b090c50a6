import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { startMcpHttpServer, type TestMcpHttpServer } from "./http-server.ts";

/** A tool as a server lists it in `tools/list`: raw JSON, not checked on the way out. */
export interface RawTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: unknown;
  readonly outputSchema?: unknown;
}

/**
 * An MCP server (the SDK's, over streamable HTTP on 127.0.0.1) whose `tools/list` answers `tools`
 * exactly as given, as a hostile or broken server would, bypassing the SDK's own schema building;
 * `call` answers `tools/call` (default: the arguments back as text).
 */
export function startRawToolsMcpServer(
  tools: readonly RawTool[],
  call: (name: string, args: unknown) => unknown = (_name, args) => ({
    content: [{ type: "text", text: JSON.stringify(args) }],
  }),
): Promise<TestMcpHttpServer> {
  return startMcpHttpServer((server) => {
    server.server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools as never }));
    server.server.setRequestHandler(
      CallToolRequestSchema,
      async (req) => call(req.params.name, req.params.arguments) as never,
    );
  });
}

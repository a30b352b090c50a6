/**
 * An MCP server over stdio with one tool, `crash`, that writes a last line to stderr (naming the
 * `SERVICE_KEY` from its environment, as a careless server would) and exits in the middle of the
 * call: for tests of what the gateway shows when a server dies. Run as `bun crashing-stdio.ts`.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const server = new McpServer({ name: "crashing-stdio", version: "1.0.0" }, { capabilities: { tools: {} } });
server.server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{ name: "crash", description: "Dies", inputSchema: { type: "object" } }],
}));
server.server.setRequestHandler(CallToolRequestSchema, async () => {
  process.stderr.write(`panic: out of memory while using ${process.env.SERVICE_KEY}\n`, () => process.exit(70));
  return new Promise<never>(() => {});
});
await server.connect(new StdioServerTransport());

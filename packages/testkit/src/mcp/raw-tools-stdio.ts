/**
 * An MCP server over stdio whose `tools/list` answers the raw tool list read as JSON from the file
 * argv[2] (see raw-tools-server.ts), for tests of what the gateway does with a hostile stdio server.
 * Run as `bun raw-tools-stdio.ts <tools.json>`.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const tools = JSON.parse(await Bun.file(process.argv[2]!).text());
const server = new McpServer({ name: "raw-stdio", version: "1.0.0" }, { capabilities: { tools: {} } });
server.server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.server.setRequestHandler(CallToolRequestSchema, async (req) => ({
  content: [{ type: "text", text: JSON.stringify(req.params.arguments) }],
}));
await server.connect(new StdioServerTransport());

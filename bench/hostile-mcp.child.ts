/**
 * Child process for bench/hostile-sources.ts: an MCP server (streamable HTTP on 127.0.0.1) listing
 * the tools read as JSON from the file argv[2], so that serializing a hostile tool list is this
 * process's work, not the measured gateway's. Prints its URL on one line, then serves until killed.
 */
import { startRawToolsMcpServer } from "../packages/testkit/src/mcp/raw-tools-server.ts";

const tools = JSON.parse(await Bun.file(process.argv[2]!).text());
const server = await startRawToolsMcpServer(tools);
console.log(server.url);

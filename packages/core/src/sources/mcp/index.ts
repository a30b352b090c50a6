/** MCP servers as tools: typed from their schemas, approval from their annotations. */
export { McpConnection, type McpServerConfig } from "./connection.ts";
export { mcpToolTree } from "./tools.ts";
export { mcpBundles, closeMcpConnections } from "./bundle.ts";

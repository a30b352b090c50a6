/** Tool sources beyond files: MCP servers and OpenAPI specs. */
export { closeMcpConnections, mcpBundles } from "./mcp/index.ts";
export { loadOpenApiSource } from "./openapi/index.ts";
export { McpConnection, McpOAuthStore, mcpLogin, mcpOAuthPath } from "./mcp/index.ts";

/** MCP servers as tools: typed from their schemas, approval from their annotations. */
export { McpConnection } from "./connection.ts";
export { mcpToolTree } from "./tools.ts";
export { closeMcpConnections } from "./bundle.ts";
export { McpOAuthProvider, mcpLogin } from "./oauth.ts";
export { McpOAuthStore, mcpOAuthPath } from "./oauth-store.ts";

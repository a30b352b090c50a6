/** MCP servers as tools: typed from their schemas, approval from their annotations. */
export { McpConnection, type McpServerConfig } from "./connection.ts";
export { mcpToolTree } from "./tools.ts";
export { mcpBundles, closeMcpConnections } from "./bundle.ts";
export {
  McpLoginRequiredError,
  McpOAuthProvider,
  mcpLogin,
  type McpLoginOptions,
  type McpOAuthConfig,
} from "./oauth.ts";
export { MCP_OAUTH_FILENAME, McpOAuthStore, McpOAuthStoreError, mcpOAuthPath } from "./oauth-store.ts";

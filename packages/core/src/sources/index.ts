/** Tool sources beyond files: the source kinds (MCP servers, OpenAPI specs, …) and their registry. */
export { closeSourceKinds } from "./kind.ts";
export { SOURCE_KINDS } from "./kinds.ts";
export { McpConnection, mcpLogin, mcpOAuthPath } from "./mcp/index.ts";

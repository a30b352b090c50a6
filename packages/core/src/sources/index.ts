/** Tool sources beyond files: the source kinds (MCP servers, OpenAPI specs, …) and their registry. */
export { closeSourceKinds } from "./kind.ts";
export { SOURCE_KINDS } from "./kinds.ts";
export { McpConnection, mcpLogin, mcpOAuthPath } from "./mcp/index.ts";
/** #34: a client's tools are JSON Schema tools held to the same limits as a source's. */
export { jsonSchemaTool } from "./json-schema-tool.ts";
export { prepareJsonSchema } from "./schema-limits.ts";
export { DESCRIPTION_LIMIT } from "./source-budget.ts";

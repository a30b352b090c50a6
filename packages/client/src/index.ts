/** `@openassistant/client`: tools that run where the user is, called by a gateway's model (README.md). */
export { connect } from "./client.ts";
export type { Answer, ApprovalUpdate, AskOptions, ConnectOptions, OpenAssistantClient, Registered } from "./client.ts";
export type { ClientCallContext, ClientTool, DefinedTool, JsonSchemaClientTool } from "./tools.ts";
export type { McpServerSpec } from "./mcp-bridge.ts";

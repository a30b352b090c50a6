export { defineTool, isToolDefinition, ToolDefinitionError } from "./define-tool.ts";
export type { ApprovalMode, ToolDefinition, ToolOptions, ToolTree } from "./define-tool.ts";
export type { PluginContext, PluginLogger } from "./plugin-context.ts";
export { z } from "zod";

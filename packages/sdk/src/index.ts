export { defineTool, isToolDefinition, ToolDefinitionError } from "./define-tool.ts";
export type {
  ApprovalMode,
  PreviewFile,
  ToolContext,
  ToolDefinition,
  ToolLogger,
  ToolOptions,
  ToolProgress,
  ToolTree,
} from "./define-tool.ts";
export { definePlugin, isPluginDefinition } from "./define-plugin.ts";
export type { PluginDefinition, PluginOptions } from "./define-plugin.ts";
export type { PluginContext, PluginLogger } from "./plugin-context.ts";
export { z } from "zod";

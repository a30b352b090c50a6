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
export type {
  Awaitable,
  ChatMessageAnswer,
  HookApprovalDecided,
  HookChatMessage,
  HookContext,
  HookRequester,
  HookRunEnd,
  HookRunStart,
  HookToolCall,
  HookToolOutcome,
  PluginHooks,
  ToolAfterAnswer,
  ToolBeforeAnswer,
} from "./hooks.ts";
export { z } from "zod";
export { defineAbility } from "./define-ability.ts";
export type { AbilityDefinition, AbilityOptions, AbilityStepOptions } from "./define-ability.ts";

export {
  createHookSet,
  DEFAULT_HOOK_TIMEOUT_MS,
  HOOK_EVENTS,
  NO_HOOKS,
  type HookEvent,
  type HookSet,
  type HookSetOptions,
  type PluginHookEntry,
  type PluginHookSummary,
} from "./set.ts";
export { runObservers, systemPromptAdditions } from "./observe.ts";
export { checkPluginHooks } from "./check.ts";

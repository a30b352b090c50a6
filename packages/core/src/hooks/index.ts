export { createHookSet, type HookSet } from "./set.ts";
export { runObservers, systemPromptAdditions } from "./observe.ts";
export { withHostHooks } from "./merge.ts";

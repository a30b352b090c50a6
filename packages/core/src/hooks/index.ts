export { createHookSet, type HookSet } from "./set.ts";
export { runObservers, systemPromptAdditions } from "./observe.ts";

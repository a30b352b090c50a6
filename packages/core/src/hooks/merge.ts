import { createHookSet, HOOK_EVENTS, type HookSet, type PluginHookEntry } from "./set.ts";

/**
 * The set with the host's own hooks added (e.g. abilities' enforcement), ordered with the plugins'
 * by priority like any plugin's. Undefined set: the host's hooks alone.
 */
export function withHostHooks(set: HookSet | undefined, entry: PluginHookEntry): HookSet {
  const own = createHookSet([entry], set ? { log: set.log } : {});
  if (!set) return own;
  const byEvent = {} as Record<string, unknown[]>;
  for (const event of HOOK_EVENTS)
    byEvent[event] = [...set.byEvent[event], ...own.byEvent[event]].sort(
      (a, b) => (b as { priority: number }).priority - (a as { priority: number }).priority,
    );
  return Object.freeze({
    byEvent: byEvent as unknown as HookSet["byEvent"],
    plugins: [...set.plugins, ...own.plugins],
    log: set.log,
  });
}

import type { HookContext } from "@openassistant/sdk";
import { callHook, type HookScope } from "./call.ts";
import type { HookEvent, HookFunctions, HookSet } from "./set.ts";

/**
 * Runs every hook of an observer event in order and returns what each answered (in order). A hook
 * that throws or times out is logged and left out: observer hooks fail open.
 */
export async function runObservers<E extends Exclude<HookEvent, "tool.before" | "tool.after">, T>(
  set: HookSet,
  event: E,
  scope: HookScope,
  invoke: (fn: HookFunctions[E], ctx: HookContext) => T | Promise<T>,
  signal?: AbortSignal,
): Promise<{ readonly pluginId: string; readonly value: Awaited<T> }[]> {
  const out: { pluginId: string; value: Awaited<T> }[] = [];
  for (const hook of set.byEvent[event] as readonly (typeof set.byEvent)[E][number][]) {
    const answer = await callHook(hook, scope, signal, invoke as (fn: unknown, ctx: HookContext) => T | Promise<T>);
    if (answer.ok) out.push({ pluginId: hook.pluginId, value: answer.value as Awaited<T> });
    else set.log(`[${hook.pluginId}] ${event} hook ${answer.why} (ignored: observer hooks fail open)`);
  }
  return out;
}

/** Text the `prompt.system` hooks append to the system prompt (each non-empty answer, in order). */
export async function systemPromptAdditions(set: HookSet, scope: HookScope): Promise<string[]> {
  if (set.byEvent["prompt.system"].length === 0) return [];
  const answers = await runObservers(set, "prompt.system", scope, (fn, ctx) => fn(ctx));
  return answers.flatMap((a) => (typeof a.value === "string" && a.value.trim() ? [a.value] : []));
}

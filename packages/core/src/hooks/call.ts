import type { HookContext } from "@openassistant/sdk";
import { describeThrown } from "../codemode/thrown.ts";
import type { BoundHook } from "./set.ts";

/** What a hook's context has besides its plugin id and signal. */
export type HookScope = Omit<HookContext, "pluginId" | "signal">;

export type HookAnswer<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly why: string };

/**
 * Calls one hook within its time limit. Its signal aborts when the time is up or `parent` aborts.
 * A hook that throws or does not answer in time is reported (`ok: false`, saying why), never thrown.
 * A hook that answers synchronously costs no timer.
 */
export async function callHook<F, T>(
  hook: BoundHook<F>,
  scope: HookScope,
  parent: AbortSignal | undefined,
  invoke: (fn: F, ctx: HookContext) => T | Promise<T>,
): Promise<HookAnswer<T>> {
  const controller = new AbortController();
  const forward = () => controller.abort(parent?.reason);
  if (parent?.aborted) forward();
  else parent?.addEventListener("abort", forward, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const answer = invoke(hook.fn, { ...scope, pluginId: hook.pluginId, signal: controller.signal });
    if (!(answer instanceof Promise)) return { ok: true, value: answer };
    const late = new Promise<HookAnswer<T>>((resolve) => {
      timer = setTimeout(() => {
        controller.abort(new Error(`hook of plugin "${hook.pluginId}" timed out`));
        resolve({ ok: false, why: `did not answer within ${hook.timeoutMs} ms` });
      }, hook.timeoutMs);
    });
    return await Promise.race([answer.then(answered<T>, threw), late]);
  } catch (e) {
    return threw(e);
  } finally {
    clearTimeout(timer);
    parent?.removeEventListener("abort", forward);
  }
}

const answered = <T>(value: T): HookAnswer<T> => ({ ok: true, value });
const threw = (e: unknown): HookAnswer<never> => ({
  ok: false,
  why: `threw: ${describeThrown(e, "the hook").recorded}`,
});

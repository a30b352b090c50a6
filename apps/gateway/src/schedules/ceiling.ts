import type { HookSet } from "@openassistant/core/hooks";
import { matchToolPattern } from "@openassistant/core/tools";

/** The user id a schedule's turns run as: who asked is the schedule (hooks, cards and receipts show it). */
export function scheduleRequester(scheduleId: string): string {
  return `schedule:${scheduleId}`;
}

const SCHEDULE_REQUESTER = /^schedule:(.+)$/;

/** The hook's owner as receipts name it (`decidedBy: plugin:schedules`). */
export const CEILING_HOOK_ID = "schedules";

/**
 * The tool ceilings of the schedules whose turns run in this gateway: a schedule's id → the tool
 * paths or globs its runs may call (`undefined`: no ceiling).
 */
export type Ceilings = ReadonlyMap<string, readonly string[] | undefined>;

/** Why a call is outside a schedule's ceiling; undefined when it may run. */
export function outsideCeiling(path: string, ceiling: readonly string[] | undefined): string | undefined {
  // Discovery ($search, $describe) reads declarations only.
  if (!ceiling || path.startsWith("$") || ceiling.some((p) => matchToolPattern(p, path))) return undefined;
  return `${path} is outside the tools this schedule may call (${ceiling.length ? ceiling.join(", ") : "none"}); the schedule's creator can widen them by creating it again with \`tools\``;
}

/**
 * The hook set with the schedules' ceiling first among `tool.before` (the highest priority): a
 * call made by a schedule's turn to a tool outside its ceiling is denied by `plugin:schedules`
 * (the call's `denied` receipt names it). A schedule that runs here and is unknown to `ceilings`
 * (removed meanwhile) is denied everything. Built once per hook set.
 */
export function withCeilings(ceilings: Ceilings): (set: HookSet) => HookSet {
  const built = new WeakMap<HookSet, HookSet>();
  return (set) => {
    let out = built.get(set);
    if (out) return out;
    const hook = {
      pluginId: CEILING_HOOK_ID,
      priority: Number.POSITIVE_INFINITY,
      timeoutMs: 5_000,
      fn: ((call, ctx) => {
        const id = SCHEDULE_REQUESTER.exec(ctx.requestedBy?.userId ?? "")?.[1];
        if (id === undefined) return undefined;
        if (!ceilings.has(id)) return { deny: `schedule ${id} is not running in this gateway` };
        const why = outsideCeiling(call.path, ceilings.get(id));
        return why ? { deny: why } : undefined;
      }) satisfies HookSet["byEvent"]["tool.before"][number]["fn"],
    };
    out = Object.freeze({
      ...set,
      byEvent: { ...set.byEvent, "tool.before": [hook, ...set.byEvent["tool.before"]] },
    });
    built.set(set, out);
    return out;
  };
}

import type { HookSet } from "@openassistant/core/hooks";
import { matchToolPattern } from "@openassistant/core/tools";

/** The user id a schedule's turns run as: who asked is the schedule (hooks, cards and receipts show it). */
export function scheduleRequester(scheduleId: string): string {
  return `schedule:${scheduleId}`;
}

const SCHEDULE_REQUESTER = /^schedule:(.+)$/;

/** The schedule a requester (`schedule:<id>`) is, if it is one. */
export function scheduleOf(userId: string | undefined): string | undefined {
  return SCHEDULE_REQUESTER.exec(userId ?? "")?.[1];
}

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
 * (the call's `denied` receipt names it). A schedule's run unknown to `ceilings` is denied
 * everything. The hook is in the set only while `ceilings` has an entry: while an occurrence's
 * turn runs here, and for the runs resumed at start that a schedule asked for (pinned). Built once
 * per hook set.
 */
export function withCeilings(ceilings: Ceilings): (set: HookSet) => HookSet {
  const built = new WeakMap<HookSet, HookSet>();
  return (set) => {
    // No schedule runs here: no hook, so the crossing path pays nothing for it (a hook costs each call a wait).
    if (ceilings.size === 0) return set;
    let out = built.get(set);
    if (out) return out;
    const hook = {
      pluginId: CEILING_HOOK_ID,
      priority: Number.POSITIVE_INFINITY,
      timeoutMs: 5_000,
      fn: ((call, ctx) => {
        const id = scheduleOf(ctx.requestedBy?.userId);
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

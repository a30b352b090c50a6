import type { PluginHooks } from "@openassistant/sdk";

/** Default time a hook has to answer (`timeoutMs` in the plugin's hooks overrides it). */
export const DEFAULT_HOOK_TIMEOUT_MS = 5_000;

/** The hooks one loaded plugin registered. */
export interface PluginHookEntry {
  readonly pluginId: string;
  readonly hooks: PluginHooks;
}

type Defined<T> = Exclude<T, undefined>;
type ToolHooks = Defined<PluginHooks["tool"]>;

/** The hook functions, one per event name (`tool.before`, `chat.message`, ...). */
export interface HookFunctions {
  readonly "tool.before": Defined<ToolHooks["before"]>;
  readonly "tool.after": Defined<ToolHooks["after"]>;
  readonly "chat.message": Defined<Defined<PluginHooks["chat"]>["message"]>;
  readonly "prompt.system": Defined<Defined<PluginHooks["prompt"]>["system"]>;
  readonly "run.start": Defined<Defined<PluginHooks["run"]>["start"]>;
  readonly "run.end": Defined<Defined<PluginHooks["run"]>["end"]>;
  readonly "approval.decided": Defined<Defined<PluginHooks["approval"]>["decided"]>;
  readonly "gateway.start": Defined<Defined<PluginHooks["gateway"]>["start"]>;
  readonly "gateway.stop": Defined<Defined<PluginHooks["gateway"]>["stop"]>;
}

export type HookEvent = keyof HookFunctions;

export const HOOK_EVENTS: readonly HookEvent[] = [
  "tool.before",
  "tool.after",
  "chat.message",
  "prompt.system",
  "run.start",
  "run.end",
  "approval.decided",
  "gateway.start",
  "gateway.stop",
];

/** One registered hook: whose it is, its place in the order and its time limit. */
export interface BoundHook<F> {
  readonly pluginId: string;
  readonly priority: number;
  readonly timeoutMs: number;
  readonly fn: F;
}

/** What `plugins list` shows of a plugin's hooks. */
export interface PluginHookSummary {
  readonly pluginId: string;
  readonly priority: number;
  readonly events: readonly HookEvent[];
}

/**
 * Every registered hook by event, each list in running order: by priority (higher first), then in
 * load order. Immutable: a run keeps the set it started with, like its tools.
 */
export interface HookSet {
  readonly byEvent: { readonly [E in HookEvent]: readonly BoundHook<HookFunctions[E]>[] };
  readonly plugins: readonly PluginHookSummary[];
  /** Where observer hook failures and notes go (already prefixed with the plugin id). */
  readonly log: (line: string) => void;
}

export interface HookSetOptions {
  /** Default time limit per hook (ms). */
  readonly timeoutMs?: number;
  readonly log?: (line: string) => void;
}

/** The functions of one event in a plugin's hooks, if it registered one. */
function functionOf<E extends HookEvent>(hooks: PluginHooks, event: E): HookFunctions[E] | undefined {
  const [group, name] = event.split(".") as [keyof PluginHooks, string];
  const section = hooks[group];
  if (typeof section !== "object" || section === null) return undefined;
  const fn = (section as Readonly<Record<string, unknown>>)[name];
  return typeof fn === "function" ? (fn as HookFunctions[E]) : undefined;
}

/** Builds the set from the plugins' hooks, given in load order. */
export function createHookSet(entries: readonly PluginHookEntry[], options: HookSetOptions = {}): HookSet {
  const defaultTimeout = options.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
  const byEvent = {} as { [E in HookEvent]: BoundHook<HookFunctions[E]>[] };
  for (const event of HOOK_EVENTS) byEvent[event] = [];
  const plugins: PluginHookSummary[] = [];
  for (const { pluginId, hooks } of entries) {
    const priority = hooks.priority ?? 0;
    const timeoutMs = hooks.timeoutMs ?? defaultTimeout;
    const events: HookEvent[] = [];
    for (const event of HOOK_EVENTS) {
      const fn = functionOf(hooks, event);
      if (!fn) continue;
      events.push(event);
      (byEvent[event] as BoundHook<unknown>[]).push({ pluginId, priority, timeoutMs, fn });
    }
    plugins.push({ pluginId, priority, events });
  }
  // Array sort is stable: equal priorities keep load order.
  for (const event of HOOK_EVENTS) byEvent[event].sort((a, b) => b.priority - a.priority);
  return Object.freeze({ byEvent, plugins, log: options.log ?? ((line: string) => console.warn(line)) });
}

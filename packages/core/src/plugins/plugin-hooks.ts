import type { PluginContext, PluginDefinition, PluginHooks } from "@openassistant/sdk";
import type { Diagnostic } from "../config/diagnostic.ts";
import type { LoadedConfig } from "../config/load.ts";
import { locateConfigKey } from "../config/locate.ts";
import { checkPluginHooks } from "../hooks/check.ts";
import { HOOK_EVENTS } from "../hooks/set.ts";
import { describeThrown } from "../codemode/thrown.ts";
import { formatSeconds, LoadTimeoutError, withTimeLimit } from "./time-limit.ts";
import type { PluginHookEntry } from "../hooks/set.ts";
import type { LoadEntry, LoadResult } from "./types.ts";

/** What a loaded entry keeps besides its tools: the hooks its plugin registered, if any. */
export interface Hooked {
  readonly hooks?: PluginHooks;
}

type Problem = { readonly source: string; readonly message: string; readonly hint: string };

/**
 * The one point where hooks are obtained from a loaded plugin module: `definePlugin({ hooks })`
 * built from the plugin's context (within the factory's time limit) and checked.
 */
export async function buildPluginHooks(
  build: PluginDefinition["hooks"],
  ctx: PluginContext,
  limitMs: number,
  file: string,
  /** `config.<id>.hookTimeoutMs`: the operator's time limit for each hook, over the plugin's own. */
  operatorTimeoutMs?: unknown,
): Promise<{ hooks?: PluginHooks } | { problem: Problem }> {
  if (!build) return {};
  let hooks: unknown;
  try {
    hooks = await withTimeLimit(async () => build(ctx), limitMs);
  } catch (err) {
    const message =
      err instanceof LoadTimeoutError
        ? `building the plugin's hooks did not finish within ${formatSeconds(err.ms)}`
        : `building the plugin's hooks threw: ${describeThrown(err, "the hooks function").recorded}`;
    return {
      problem: { source: file, message, hint: `Fix definePlugin({ hooks }) in ${file}; the other plugins still load.` },
    };
  }
  const problem = checkPluginHooks(hooks);
  if (problem)
    return {
      problem: {
        source: file,
        message: problem,
        hint: `Fix definePlugin({ hooks }) in ${file} (hooks: ${HOOK_EVENTS.join(", ")}); the other plugins still load.`,
      },
    };
  const checked = hooks as PluginHooks;
  return typeof operatorTimeoutMs === "number"
    ? { hooks: { ...checked, timeoutMs: operatorTimeoutMs } }
    : { hooks: checked };
}

/** What `plugins list` shows of a plugin's hooks. */
export function hookSummary(hooks: PluginHooks): { priority: number; events: string[] } {
  return {
    priority: hooks.priority ?? 0,
    events: HOOK_EVENTS.filter((event) => {
      const [group, name] = event.split(".") as [keyof PluginHooks, string];
      const section = hooks[group];
      return typeof section === "object" && section !== null && name in section;
    }),
  };
}

/**
 * One error per plugin marked `critical: true` in `config.<id>` that is not loaded (missing,
 * disabled or broken): the gateway refuses to start on them (`isCriticalDiagnostic`), `doctor`
 * reports them. A reload keeps a broken critical plugin's previous version (it is `stale`, loaded).
 */
export function criticalDiagnostics(loaded: LoadedConfig, entries: readonly LoadEntry[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const [id, section] of Object.entries(loaded.config.config)) {
    if (section?.critical !== true) continue;
    const entry = entries.find((e) => e.id === id);
    if (entry?.status === "loaded") continue;
    const at = locateConfigKey(loaded.sources, ["config", id, "critical"]);
    const why = !entry ? "was not found" : entry.status === "disabled" ? "is disabled" : "did not load";
    out.push({
      level: "error",
      id: `${CRITICAL_ID_PREFIX}${id}`,
      source: at?.file ?? loaded.sources.at(-1) ?? "config",
      ...(at ? { line: at.line, column: at.column } : {}),
      message: `critical plugin "${id}" ${why}: the gateway does not start without it (config.${id}.critical is true)`,
      hint: entry
        ? `Fix the plugin "${id}" (see its error above), or remove config.${id}.critical if the gateway may run without it.`
        : `Install or add the plugin "${id}" (config.plugins or .openassistant/plugins/), or remove config.${id}.critical.`,
    });
  }
  return out;
}

const CRITICAL_ID_PREFIX = "critical:";

/** A diagnostic that stops the gateway from starting: a critical plugin that is not loaded. */
export function isCriticalDiagnostic(d: Diagnostic): boolean {
  return d.level === "error" && d.id.startsWith(CRITICAL_ID_PREFIX);
}

/**
 * A reload after which a critical plugin is gone (its folder removed, disabled, renamed) keeps the
 * hooks it had registered, and its error says so: a firewall never disappears on a reload. (A plugin
 * that is still found but broken keeps its previous version in the loader, hooks included.)
 */
export function keepCriticalHooks(previous: readonly PluginHookEntry[] | undefined, result: LoadResult): LoadResult {
  if (!previous?.length) return result;
  const hooks = [...result.hooks];
  const diagnostics = result.diagnostics.map((d) => {
    if (!isCriticalDiagnostic(d)) return d;
    const id = d.id.slice(CRITICAL_ID_PREFIX.length);
    const kept = previous.find((h) => h.pluginId === id);
    if (!kept || hooks.some((h) => h.pluginId === id)) return d;
    hooks.push(kept);
    return { ...d, message: `${d.message}; its hooks from before this reload stay active until it loads again` };
  });
  return { ...result, hooks, diagnostics };
}

import { HOOK_EVENTS } from "./set.ts";

const GROUPS = new Set(["priority", "timeoutMs", ...HOOK_EVENTS.map((e) => e.split(".")[0]!)]);
const NAMES = new Set(HOOK_EVENTS);

/**
 * What is wrong with a plugin's hooks as built at load (JavaScript authors have no compiler to
 * tell them), or undefined: an unknown key is an error rather than a hook that never runs.
 */
export function checkPluginHooks(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return `hooks must be an object such as { tool: { before(call, ctx) { ... } } }, got ${value === null ? "null" : typeof value}`;
  for (const [key, section] of Object.entries(value)) {
    if (!GROUPS.has(key)) return `hooks.${key} is not a hook (known: ${HOOK_EVENTS.join(", ")})`;
    if (key === "priority" || key === "timeoutMs") {
      if (typeof section !== "number" || !Number.isFinite(section) || (key === "timeoutMs" && section <= 0))
        return `hooks.${key} must be a ${key === "timeoutMs" ? "positive " : ""}finite number, got ${JSON.stringify(section)}`;
      continue;
    }
    if (typeof section !== "object" || section === null) return `hooks.${key} must be an object of hook functions`;
    for (const [name, fn] of Object.entries(section)) {
      if (!NAMES.has(`${key}.${name}` as (typeof HOOK_EVENTS)[number]))
        return `hooks.${key}.${name} is not a hook (known: ${HOOK_EVENTS.join(", ")})`;
      if (typeof fn !== "function") return `hooks.${key}.${name} must be a function, got ${typeof fn}`;
    }
  }
  return undefined;
}

import { SOURCE_KINDS } from "../sources/kinds.ts";

/**
 * The config keys a reload applies (they only decide which tools exist and how they load): the
 * per-namespace keys and each tool source kind's section, unless the kind reads it once
 * (`readOnce`); every other key is read once when the gateway starts.
 */
export const RELOADED_KEYS: readonly string[] = [
  "config",
  "tools",
  ...SOURCE_KINDS.flatMap((k) => (k.schema && !k.readOnce ? [k.key] : [])),
];

/**
 * Dotted paths of the settings that differ between the config the gateway started with and the one
 * on disk now, outside `RELOADED_KEYS`: each needs a restart to apply. An array or a value that
 * changed is named by its own path (`http.approvers`), an added or removed key by its path too.
 */
export function keysNeedingRestart(started: unknown, now: unknown): string[] {
  const out: string[] = [];
  const walk = (a: unknown, b: unknown, path: string[]) => {
    if (isRecord(a) && isRecord(b)) {
      for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
        if (path.length === 0 && RELOADED_KEYS.includes(key)) continue;
        walk(a[key], b[key], [...path, key]);
      }
    } else if (JSON.stringify(a) !== JSON.stringify(b)) out.push(path.join("."));
  };
  walk(started, now, []);
  return out.sort();
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

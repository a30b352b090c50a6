/**
 * Tool inputs are plain data. JSON.parse turns a `"__proto__"` key into an OWN property, and a tool
 * that merges its input (`Object.assign`, a deep merge, `target[k] = v`) would then change a
 * prototype. Whatever a tool's schema lets through (`z.unknown()`, `z.record`, loose objects), an
 * input whose objects have an own key named below is refused before validation, naming the field.
 */
import { cutText } from "../text/index.ts";

const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Whether JSON text can parse to a value with a forbidden key, as a cheap test before the walk.
 * JSON.parse gives a string (a key too) exactly the characters written between its quotes unless
 * they hold an escape, which starts with a backslash. So a text without any backslash holds each of
 * its keys verbatim, and one without any forbidden word verbatim has no forbidden key.
 */
export function mayHaveForbiddenKey(json: string): boolean {
  if (json.includes("\\")) return true;
  for (const key of FORBIDDEN_KEYS) if (json.includes(key)) return true;
  return false;
}

/** The path (`a.b[2].__proto__`) of the first forbidden own key in a JSON value, or undefined. */
export function findForbiddenKey(value: unknown): string | undefined {
  // Iterative: a model can nest input as deeply as JSON.parse allows.
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: "" }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: `${path}[${i}]` });
      continue;
    }
    for (const key of Object.keys(v)) {
      const at = path ? `${path}.${key}` : key;
      if (FORBIDDEN_KEYS.has(key)) return at;
      stack.push({ value: (v as Record<string, unknown>)[key], path: at });
    }
  }
  return undefined;
}

export function forbiddenKeyMessage(path: string): string {
  const key = path.slice(path.lastIndexOf(".") + 1);
  return `${cutText(path, 200)}: a key named "${key}" is not accepted in tool inputs (keys named __proto__, constructor or prototype are refused so they cannot reach a tool's objects); rename the field`;
}

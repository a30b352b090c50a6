import { lookup, type RunScope } from "./context.ts";

/** `{{ inputs.version }}`, `{{steps.build.output.url}}`: a dotted path inside double braces. */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w]*(?:\.[\w-]+)*)\s*\}\}/g;
const WHOLE = /^\{\{\s*([A-Za-z_][\w]*(?:\.[\w-]+)*)\s*\}\}$/;

/** Every path a value's templates name (for checking them before any run). */
export function templatePaths(value: unknown): string[] {
  const out: string[] = [];
  walk(value, (text) => {
    for (const m of text.matchAll(PLACEHOLDER)) out.push(m[1]!);
    return text;
  });
  return out;
}

/**
 * Fills the templates in every string of `value`. A string that is one placeholder and nothing else
 * takes the value itself (a number stays a number, an object an object); inside other text a value
 * is written as text (objects as JSON). A path with no value is an error naming it.
 */
export function renderTemplates(value: unknown, scope: RunScope): unknown {
  return walk(value, (text) => {
    const whole = WHOLE.exec(text);
    if (whole) return valueAt(scope, whole[1]!);
    return text.replace(PLACEHOLDER, (_, path: string) => {
      const v = valueAt(scope, path);
      return typeof v === "string" ? v : JSON.stringify(v);
    });
  });
}

/** The same, for a string that must stay a string (a prompt, a goal). */
export function renderText(text: string, scope: RunScope): string {
  const v = renderTemplates(text, scope);
  return typeof v === "string" ? v : JSON.stringify(v);
}

function valueAt(scope: RunScope, path: string): unknown {
  const v = lookup(scope, path);
  if (v === undefined)
    throw new TemplateError(`{{${path}}} has no value (no such input, or that step has no such output)`);
  return v;
}

export class TemplateError extends Error {
  override readonly name = "TemplateError";
}

function walk(value: unknown, onText: (text: string) => unknown): unknown {
  if (typeof value === "string") return onText(value);
  if (Array.isArray(value)) return value.map((v) => walk(v, onText));
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, k, { value: walk(v, onText), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}

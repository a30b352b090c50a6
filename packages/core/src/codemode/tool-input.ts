import type { ToolDefinition } from "@openassistant/sdk";
import { safeParseAsync as zodSafeParseAsync, z } from "zod";
import { findForbiddenKey, forbiddenKeyMessage, mayHaveForbiddenKey } from "./plain-input.ts";
import { describeThrown, type ThrownValue } from "./thrown.ts";
import { formatIssues } from "./validation-report.ts";

/**
 * zod's own `schema.safeParseAsync`: an async method that returns `safeParseAsync(schema, data)`.
 * Where a schema has it, calling that function directly gives the same result one async hop sooner.
 */
const STOCK_SAFE_PARSE_ASYNC = z.object({}).safeParseAsync;

export type ParsedInput = { ok: true; value: unknown } | { ok: false; message: string; threw?: ThrownValue };

/**
 * Parses with `safeParseAsync`, so a schema may check asynchronously before anyone is asked to
 * approve (the workspace tools typecheck a source file this way; a failure goes back to the model).
 */
export function parseInput(def: ToolDefinition, json: string): ParsedInput | Promise<ParsedInput> {
  let raw: unknown;
  try {
    raw = json === undefined || json === "" ? {} : JSON.parse(json);
  } catch {
    return { ok: false, message: "input is not valid JSON" };
  }
  // Most inputs hold no forbidden word at all: their text alone shows it, without walking the value.
  const forbidden = typeof json === "string" && mayHaveForbiddenKey(json) ? findForbiddenKey(raw) : undefined;
  if (forbidden !== undefined) return { ok: false, message: forbiddenKeyMessage(forbidden) };
  const value = raw === undefined ? {} : raw;
  let validation: ReturnType<ToolDefinition["args"]["safeParseAsync"]>;
  try {
    validation =
      def.args.safeParseAsync === STOCK_SAFE_PARSE_ASYNC
        ? zodSafeParseAsync(def.args, value)
        : def.args.safeParseAsync(value);
  } catch (e) {
    return schemaThrew(e);
  }
  // safeParseAsync reports issues, but a transform/refine that throws escapes it.
  return Promise.resolve(validation).then(
    (r) => (r.success || !missedThroughPrototype(r.error.issues) ? validated(r) : ownKeysOnly(def, value)),
    schemaThrew,
  );
}

/**
 * zod reads each key of an object schema as `input[key]`, so an optional field named `toString`,
 * `valueOf` … that the input leaves out reads Object.prototype's function ("expected string,
 * received function"). Such a failure is validated again on a copy whose objects have no prototype.
 */
function missedThroughPrototype(issues: readonly { readonly path: readonly PropertyKey[] }[]): boolean {
  return issues.some((i) => {
    const last = i.path.at(-1);
    return typeof last === "string" && last in Object.prototype;
  });
}

function ownKeysOnly(def: ToolDefinition, value: unknown): Promise<ParsedInput> {
  let validation: ReturnType<ToolDefinition["args"]["safeParseAsync"]>;
  try {
    validation = def.args.safeParseAsync(withPrototype(value, null));
  } catch (e) {
    return Promise.resolve(schemaThrew(e));
  }
  return Promise.resolve(validation).then((r) => {
    // What passes through unchanged (z.unknown(), loose objects) is handed to the tool as plain objects again.
    if (r.success) withPrototype(r.data, Object.prototype);
    return validated(r);
  }, schemaThrew);
}

/**
 * JSON data with every plain object's prototype set to `proto`: a copy for `null` (the parsed input
 * stays as it is), in place for Object.prototype (the copy's objects that zod passed through).
 */
function withPrototype(value: unknown, proto: object | null): unknown {
  const copy = proto === null;
  const convert = (v: unknown): unknown => {
    if (typeof v !== "object" || v === null) return v;
    if (Array.isArray(v)) {
      const out = copy ? v.slice() : v;
      for (let i = 0; i < out.length; i++) out[i] = convert(out[i]);
      return out;
    }
    const from = Object.getPrototypeOf(v);
    if (from !== Object.prototype && from !== null) return v; // a Date from a transform, a class instance …
    const out: Record<string, unknown> = copy ? Object.create(null) : (v as Record<string, unknown>);
    for (const k of Object.keys(v)) out[k] = convert((v as Record<string, unknown>)[k]);
    if (!copy && from === null) Object.setPrototypeOf(out, Object.prototype);
    return out;
  };
  return convert(value);
}

function validated(result: Awaited<ReturnType<ToolDefinition["args"]["safeParseAsync"]>>): ParsedInput {
  return result.success ? { ok: true, value: result.data } : { ok: false, message: formatIssues(result.error.issues) };
}

function schemaThrew(e: unknown): ParsedInput {
  const threw = describeThrown(e, "the schema");
  return { ok: false, message: threw.crossing, threw };
}

import { z } from "zod";
import { cutText, ELLIPSIS } from "../text/cut.ts";
import type { LinearRegExp } from "./linear-regex.ts";
import { prepareJsonSchema } from "./schema-limits.ts";

/** A tool input from JSON Schema, and why it is looser than the schema when it had to be. */
export interface ConvertedInput {
  readonly schema: z.ZodObject;
  /** Set when the JSON Schema could not be used as it is: the input is then any object. */
  readonly problem?: string;
  /** Parts of the schema the validator does not check (patterns RE2 cannot run), one sentence each. */
  readonly notes?: readonly string[];
}

/**
 * A tool input schema from JSON Schema (MCP `inputSchema`, an OpenAPI operation's parameters):
 * always a zod object. `additionalProperties: false` becomes "unknown keys are dropped" rather
 * than a `never` index signature, which would make every declared property a type error.
 * A schema zod cannot express still gets a tool: any object, validated by the server; `problem`
 * says why (the declarations turn it into a warning naming the tool).
 *
 * The schema is someone else's: it is first held to `SCHEMA_LIMITS` (schema-limits.ts), and its
 * `pattern`s are matched by RE2 in linear time, never by the built-in backtracking RegExp.
 */
export function convertInputSchema(json: unknown): ConvertedInput {
  const built = buildValidator(json ?? { type: "object" });
  const notes = built.notes.length > 0 ? { notes: built.notes } : {};
  if (!built.schema) return { schema: anyObject(), problem: built.problem, ...notes };
  if (!(built.schema instanceof z.ZodObject))
    return {
      schema: anyObject(),
      problem: "its JSON Schema does not describe an object (a tool's input is one)",
      ...notes,
    };
  return { schema: built.schema.strip(), ...notes };
}

/**
 * A zod validator from a JSON Schema someone else wrote, held to `SCHEMA_LIMITS`, with its
 * `pattern`s on RE2; or why there is none (`problem`, a sentence).
 */
export function buildValidator(json: unknown): {
  readonly schema?: z.ZodType;
  readonly problem: string;
  readonly notes: readonly string[];
} {
  const prepared = prepareJsonSchema(json);
  if (!prepared.ok) return { problem: prepared.limit, notes: [] };
  let converted: z.ZodType;
  try {
    converted = z.fromJSONSchema(prepared.schema as never);
  } catch (error) {
    const reason = cutText(error instanceof Error ? error.message : String(error), 300, { marker: ELLIPSIS });
    return { problem: `its JSON Schema cannot be turned into a validator (${reason})`, notes: prepared.notes };
  }
  if (prepared.patterns.size > 0) useLinearPatterns(converted, prepared.patterns);
  return { schema: converted, problem: "", notes: prepared.notes };
}

function anyObject(): z.ZodObject {
  return z.object({}).catchall(z.unknown());
}

/**
 * Puts the RE2 pattern in place of each placeholder RegExp zod built (zod's regex check reads
 * `def.pattern` on every call). A placeholder it could not reach stays a RegExp of NUL-fenced text,
 * which refuses ordinary input rather than letting it through.
 */
function useLinearPatterns(root: z.ZodType, patterns: ReadonlyMap<string, LinearRegExp>): void {
  const seen = new Set<unknown>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const s = stack.pop();
    if (typeof s !== "object" || s === null || seen.has(s)) continue;
    seen.add(s);
    const def = (s as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
    if (!def) continue;
    for (const check of (def.checks as Array<{ _zod?: { def?: { pattern?: unknown } } }> | undefined) ?? []) {
      const checkDef = check?._zod?.def;
      if (checkDef?.pattern instanceof RegExp) {
        const linear = patterns.get(checkDef.pattern.source);
        if (linear) checkDef.pattern = linear;
      }
    }
    if (def.type === "lazy" && typeof def.getter === "function") stack.push(def.getter());
    for (const value of Object.values(def)) {
      if (Array.isArray(value)) stack.push(...value);
      else stack.push(value);
    }
    if (typeof def.shape === "object" && def.shape !== null) stack.push(...Object.values(def.shape));
  }
}

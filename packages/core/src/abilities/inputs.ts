import { z } from "zod";
import { compileLinear } from "../sources/linear-regex.ts";
import type { InputSpec } from "./types.ts";

/** A number written as text (`/ability run x count=3`) is read as the number. */
const asNumber = (v: unknown) =>
  typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v)) ? Number(v) : v;
const asBoolean = (v: unknown) => (v === "true" ? true : v === "false" ? false : v);

/**
 * The zod schema of `ability.yaml`'s inputs. A `pattern` is matched by RE2 in linear time (a
 * pattern it cannot run is a problem of the file, reported by `inputProblems`).
 */
export function inputSchemaOf(specs: Readonly<Record<string, InputSpec>>): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, spec] of Object.entries(specs)) {
    let field: z.ZodType = fieldOf(spec);
    // The enum is checked by a refine; its values are kept for the input's JSON Schema (`abilities.list`).
    if (spec.enum) field = field.meta({ enum: [...spec.enum] });
    if (spec.description) field = field.describe(spec.description);
    if (spec.default !== undefined) field = field.default(spec.default as never);
    else if (!spec.required) field = field.optional();
    shape[name] = field;
  }
  return z.strictObject(shape);
}

function fieldOf(spec: InputSpec): z.ZodType {
  if (spec.type === "boolean") return z.preprocess(asBoolean, z.boolean());
  if (spec.type === "number") {
    const n = z.number();
    return z.preprocess(
      asNumber,
      spec.enum ? n.refine((v) => spec.enum!.includes(v), { message: `must be one of ${spec.enum.join(", ")}` }) : n,
    );
  }
  let s = z.string();
  if (spec.pattern) {
    const compiled = compileLinear(spec.pattern);
    if ("regex" in compiled) s = s.regex(compiled.regex as unknown as RegExp, `must match ${spec.pattern}`);
  }
  return spec.enum ? s.refine((v) => spec.enum!.includes(v), { message: `must be one of ${spec.enum.join(", ")}` }) : s;
}

/** What is wrong in an input's declaration itself (a pattern RE2 cannot run, a default that fails it). */
export function inputProblems(name: string, spec: InputSpec): string[] {
  const out: string[] = [];
  if (spec.pattern) {
    const compiled = compileLinear(spec.pattern);
    if ("reason" in compiled)
      out.push(
        `input ${name}: its pattern cannot be used (${compiled.reason}); write one without backreferences or lookaround`,
      );
  }
  if (spec.enum && spec.type === "boolean") out.push(`input ${name}: a boolean input takes no enum`);
  if (spec.default !== undefined && out.length === 0) {
    const checked = fieldOf(spec).safeParse(spec.default);
    if (!checked.success)
      out.push(
        `input ${name}: its default ${JSON.stringify(spec.default)} fails its own rule (${checked.error.issues[0]?.message})`,
      );
  }
  return out;
}

/** The run's inputs checked (defaults filled), or one sentence per problem naming the input. */
export function checkInputs(
  schema: z.ZodObject,
  given: Readonly<Record<string, unknown>>,
): { ok: true; inputs: Record<string, unknown> } | { ok: false; problems: string[] } {
  const parsed = schema.safeParse(given);
  if (parsed.success) return { ok: true, inputs: parsed.data as Record<string, unknown> };
  return {
    ok: false,
    problems: parsed.error.issues.map((i) => {
      if (i.code === "unrecognized_keys") return `unknown input(s): ${i.keys.join(", ")}`;
      const at = i.path.length > 0 ? i.path.join(".") : "inputs";
      return `${at}: ${i.message}`;
    }),
  };
}

/** `k=v` words (`/ability run release version=v1.2.3 draft=true`) as inputs; a word without `=` is a problem. */
export function parseKeyValues(words: readonly string[]): { inputs: Record<string, string>; problems: string[] } {
  const inputs: Record<string, string> = {};
  const problems: string[] = [];
  for (const w of words) {
    const eq = w.indexOf("=");
    if (eq <= 0) problems.push(`"${w}" is not name=value`);
    else
      Object.defineProperty(inputs, w.slice(0, eq), {
        value: w.slice(eq + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return { inputs, problems };
}

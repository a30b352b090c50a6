import { z } from "zod";
import { configSchema, type ConfigSchema } from "./schema.ts";

/**
 * Config keys whose values are secrets whatever a schema says (`token`, `apiKey`, `clientSecret`,
 * `password`, …): every string under such a key is registered with the redactor.
 */
export const SECRET_KEY = /token|secret|password|passphrase|api[-_]?key|credential|private[-_]?key/i;

type JsonSchema = { readonly [key: string]: unknown };

/**
 * Whether a JSON Schema node marks its value secret: `secret: true` (what zod's
 * `.meta({ secret: true })` becomes) or JSON Schema's own `writeOnly: true` (for manifests).
 */
export function marksSecret(node: unknown): boolean {
  if (!isObject(node)) return false;
  return (node as JsonSchema).secret === true || (node as JsonSchema).writeOnly === true;
}

/**
 * The strings of `value` that `schema` (JSON Schema) marks secret, found by walking both together:
 * object properties, `additionalProperties` and `patternProperties` (records), array items,
 * `allOf`, the `anyOf`/`oneOf` branches the value fits (a discriminator: properties with a `const`
 * must hold it), local `$ref`s. Everything under a marked node counts.
 */
export function secretValuesBySchema(schema: unknown, value: unknown): string[] {
  const out: string[] = [];
  const walk = (node: unknown, v: unknown, depth: number): void => {
    const s = resolveRef(node, schema);
    if (!s || depth > 64) return;
    if (marksSecret(s)) return void allStrings(v, out);
    if (Array.isArray(s.allOf)) for (const branch of s.allOf) walk(branch, v, depth + 1);
    for (const key of ["anyOf", "oneOf"])
      if (Array.isArray(s[key]))
        for (const branch of s[key] as unknown[]) if (fits(branch, v, schema)) walk(branch, v, depth + 1);
    if (Array.isArray(v)) {
      const prefix = Array.isArray(s.prefixItems) ? (s.prefixItems as unknown[]) : [];
      v.forEach((item, i) => walk(prefix[i] ?? s.items, item, depth + 1));
    } else if (isObject(v)) {
      const properties = isObject(s.properties) ? (s.properties as JsonSchema) : {};
      const patterns = isObject(s.patternProperties) ? Object.entries(s.patternProperties as JsonSchema) : [];
      for (const [k, child] of Object.entries(v)) {
        const own = Object.hasOwn(properties, k) ? properties[k] : undefined;
        const byPattern = patterns.filter(([p]) => safeTest(p, k)).map(([, sub]) => sub);
        for (const sub of own !== undefined ? [own] : byPattern.length ? byPattern : [s.additionalProperties])
          walk(sub, child, depth + 1);
      }
    }
  };
  walk(schema, value, 0);
  return [...new Set(out)];
}

/** Every string under a key that looks secret (`SECRET_KEY`), at any depth. */
export function secretValuesByKeyName(value: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (depth > 64) return;
    if (Array.isArray(v)) for (const item of v) walk(item, depth + 1);
    else if (isObject(v))
      for (const [k, child] of Object.entries(v))
        if (SECRET_KEY.test(k)) allStrings(child, out);
        else walk(child, depth + 1);
  };
  walk(value, 0);
  return [...new Set(out)];
}

const configJsonSchemas = new WeakMap<ConfigSchema, unknown>();

/** The config's own secrets: the fields its schema (core's, or the gateway's) marks `.meta({ secret: true })`. */
export function configSecretValues(config: unknown, schema: ConfigSchema = configSchema): string[] {
  let json = configJsonSchemas.get(schema);
  if (json === undefined)
    configJsonSchemas.set(schema, (json = z.toJSONSchema(schema, { unrepresentable: "any", io: "input" })));
  return secretValuesBySchema(json, config);
}

/** The JSON Schema of a zod schema (for `secretValuesBySchema`); undefined when zod cannot render it. */
export function zodJsonSchema(schema: unknown): unknown {
  try {
    return z.toJSONSchema(schema as z.ZodType, { unrepresentable: "any", io: "input" });
  } catch {
    return undefined;
  }
}

/** Whether `v` can be this union branch: every property the branch fixes with a `const` holds that value. */
function fits(branch: unknown, v: unknown, root: unknown): boolean {
  const s = resolveRef(branch, root);
  if (!s) return false;
  if (!isObject(v) || !isObject(s.properties)) return true;
  for (const [k, p] of Object.entries(s.properties as JsonSchema)) {
    const prop = resolveRef(p, root);
    if (prop && Object.hasOwn(prop, "const") && Object.hasOwn(v, k) && v[k] !== prop.const) return false;
  }
  return true;
}

function resolveRef(node: unknown, root: unknown): JsonSchema | undefined {
  let s = node;
  for (let hops = 0; isObject(s) && typeof (s as JsonSchema).$ref === "string" && hops < 16; hops++) {
    const ref = (s as JsonSchema).$ref as string;
    if (!ref.startsWith("#")) return undefined;
    s = ref
      .slice(1)
      .split("/")
      .filter(Boolean)
      .map((p) => decodeURIComponent(p).replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce<unknown>(
        (at, key) => (isObject(at) && Object.hasOwn(at, key) ? (at as JsonSchema)[key] : undefined),
        root,
      );
  }
  return isObject(s) ? (s as JsonSchema) : undefined;
}

function allStrings(v: unknown, out: string[], depth = 0): void {
  if (typeof v === "string") out.push(v);
  else if (depth < 64 && (Array.isArray(v) || isObject(v)))
    for (const child of Object.values(v as object)) allStrings(child, out, depth + 1);
}

function safeTest(pattern: string, key: string): boolean {
  try {
    return new RegExp(pattern, "u").test(key);
  } catch {
    return false;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

import { SCHEMA_LIMITS } from "../schema-limits.ts";

/** A spec's schema too deep or too large to rewrite (it is someone else's; the stack and the time are ours). */
export class SpecSchemaLimitError extends Error {}

/** Keywords whose value is a map from names to schemas: their keys are names (`example` is a property there), never keywords. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
/** Keywords whose value is data. */
const VALUES = new Set(["enum", "const", "examples"]);
/** OpenAPI's own keywords, which JSON Schema does not know (OpenAPI 3.0.3 §4.7.24.1, 3.1.1 §4.8.24.1). */
const OPENAPI_ONLY = new Set(["nullable", "example", "xml", "externalDocs", "discriminator"]);

/**
 * OpenAPI 3.0 schemas are not JSON Schema: `nullable: true` means "or null"
 * (https://spec.openapis.org/oas/v3.0.3#fixed-fields-19). Rewrites a tool input's schema into
 * JSON Schema: `nullable` understood, OpenAPI-only keywords dropped (but a property *named*
 * `example` or `xml` kept), `readOnly` properties left out (they are the server's to send,
 * §4.8.24.1), and `default` moved into the description: it is what the server assumes, never a
 * value the gateway adds to a request. `$ref`s are rewritten with `refBase`. Stops with
 * `SpecSchemaLimitError` past `SCHEMA_LIMITS.depth` levels or `SCHEMA_LIMITS.nodes` nodes (a
 * shared subtree, as YAML anchors make, counts at each use).
 */
export function openApi30ToJsonSchema(
  node: unknown,
  refBase?: (ref: string) => string,
  budget: { nodes: number } = { nodes: SCHEMA_LIMITS.nodes },
  depth = 0,
  target?: (ref: string) => unknown,
): unknown {
  spend(budget, depth);
  if (Array.isArray(node)) return node.map((n) => openApi30ToJsonSchema(n, refBase, budget, depth + 1, target));
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  const readOnly = readOnlyNames(node, target);
  for (const [k, v] of Object.entries(node)) {
    if (OPENAPI_ONLY.has(k) || k === "default") continue;
    let value: unknown;
    if (k === "$ref" && typeof v === "string" && refBase) value = refBase(v);
    else if (VALUES.has(k))
      value = v; // data, not schemas: an enum member `{ "nullable": 1 }` stays as it is
    else if (SCHEMA_MAPS.has(k) && typeof v === "object" && v !== null && !Array.isArray(v))
      value = schemaMap(
        v as Record<string, unknown>,
        k === "properties" ? readOnly : new Set(),
        refBase,
        budget,
        depth + 1,
        target,
      );
    else if (k === "required" && Array.isArray(v) && readOnly.size > 0) value = v.filter((n) => !readOnly.has(n));
    else value = openApi30ToJsonSchema(v, refBase, budget, depth + 1, target);
    Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
  }
  const fallback = (node as { default?: unknown }).default;
  if (fallback !== undefined) {
    const said = typeof out.description === "string" && out.description ? `${out.description} ` : "";
    out.description = `${said}(server default: ${JSON.stringify(fallback)?.slice(0, 200)})`;
  }
  if ((node as { nullable?: unknown }).nullable !== true) return out;
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (typeof out.type === "string") return { ...out, type: [out.type, "null"] };
  return { anyOf: [out, { type: "null" }] };
}

function spend(budget: { nodes: number }, depth: number): void {
  if (--budget.nodes < 0) throw new SpecSchemaLimitError(`its input schema has more than ${SCHEMA_LIMITS.nodes} nodes`);
  if (depth > SCHEMA_LIMITS.depth)
    throw new SpecSchemaLimitError(`its input schema nests deeper than ${SCHEMA_LIMITS.depth} levels`);
}

/** `properties` (and the other name → schema maps): every name kept, `readOnly` ones left out. */
function schemaMap(
  map: Record<string, unknown>,
  leaveOut: ReadonlySet<string>,
  refBase: ((ref: string) => string) | undefined,
  budget: { nodes: number },
  depth: number,
  target: ((ref: string) => unknown) | undefined,
): Record<string, unknown> {
  spend(budget, depth);
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(map)) {
    if (leaveOut.has(name)) continue;
    const value = openApi30ToJsonSchema(schema, refBase, budget, depth + 1, target);
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * Names of the properties marked `readOnly: true` where they are declared, or in the schema their
 * `$ref` (or an `allOf` member's) points at, with `target` resolving the spec's refs.
 */
function readOnlyNames(node: object, target?: (ref: string) => unknown): Set<string> {
  const properties = (node as { properties?: unknown }).properties;
  const names = new Set<string>();
  if (typeof properties !== "object" || properties === null) return names;
  const readOnly = (p: unknown, depth = 0): boolean => {
    if (typeof p !== "object" || p === null || depth > 8) return false;
    const s = p as { readOnly?: unknown; $ref?: unknown; allOf?: unknown };
    if (s.readOnly === true) return true;
    const referenced = typeof s.$ref === "string" && target ? target(s.$ref) : undefined;
    if ((referenced as { readOnly?: unknown } | undefined)?.readOnly === true) return true;
    return Array.isArray(s.allOf) && s.allOf.some((m) => readOnly(m, depth + 1));
  };
  for (const [name, p] of Object.entries(properties)) if (readOnly(p)) names.add(name);
  return names;
}

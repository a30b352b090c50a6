import { SCHEMA_LIMITS } from "../schema-limits.ts";

/** A spec's schema too deep or too large to rewrite (it is someone else's; the stack and the time are ours). */
export class SpecSchemaLimitError extends Error {}

/**
 * OpenAPI 3.0 schemas are not JSON Schema: `nullable: true` means "or null"
 * (https://spec.openapis.org/oas/v3.0.3#fixed-fields-19). Rewrites them into JSON Schema, and
 * points `#/components/schemas/X` refs at `#/$defs/X` (or keeps them, with `refBase`). Stops with
 * `SpecSchemaLimitError` past `SCHEMA_LIMITS.depth` levels or `SCHEMA_LIMITS.nodes` nodes (a
 * shared subtree, as YAML anchors make, counts at each use).
 */
export function openApi30ToJsonSchema(
  node: unknown,
  refBase?: (ref: string) => string,
  budget: { nodes: number } = { nodes: SCHEMA_LIMITS.nodes },
  depth = 0,
): unknown {
  if (--budget.nodes < 0) throw new SpecSchemaLimitError(`its input schema has more than ${SCHEMA_LIMITS.nodes} nodes`);
  if (depth > SCHEMA_LIMITS.depth)
    throw new SpecSchemaLimitError(`its input schema nests deeper than ${SCHEMA_LIMITS.depth} levels`);
  if (Array.isArray(node)) return node.map((n) => openApi30ToJsonSchema(n, refBase, budget, depth + 1));
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "nullable" || k === "example" || k === "xml" || k === "externalDocs" || k === "discriminator") continue;
    const value =
      k === "$ref" && typeof v === "string" && refBase
        ? refBase(v)
        : openApi30ToJsonSchema(v, refBase, budget, depth + 1);
    Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
  }
  if ((node as { nullable?: unknown }).nullable !== true) return out;
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (typeof out.type === "string") return { ...out, type: [out.type, "null"] };
  return { anyOf: [out, { type: "null" }] };
}

/**
 * OpenAPI 3.0 schemas are not JSON Schema: `nullable: true` means "or null"
 * (https://spec.openapis.org/oas/v3.0.3#fixed-fields-19). Rewrites them into JSON Schema, and
 * points `#/components/schemas/X` refs at `#/$defs/X` (or keeps them, with `refBase`).
 */
export function openApi30ToJsonSchema(node: unknown, refBase?: (ref: string) => string): unknown {
  if (Array.isArray(node)) return node.map((n) => openApi30ToJsonSchema(n, refBase));
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "nullable" || k === "example" || k === "xml" || k === "externalDocs" || k === "discriminator") continue;
    out[k] = k === "$ref" && typeof v === "string" && refBase ? refBase(v) : openApi30ToJsonSchema(v, refBase);
  }
  if ((node as { nullable?: unknown }).nullable !== true) return out;
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (typeof out.type === "string") return { ...out, type: [out.type, "null"] };
  return { anyOf: [out, { type: "null" }] };
}

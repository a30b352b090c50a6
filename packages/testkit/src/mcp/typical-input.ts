/**
 * A typical call's input for a tool, made from its JSON Schema the way a model writes one: every
 * required property with a plain value of its type (the first of an enum, a `const`, a number at
 * its minimum), optional ones left out. For tests that check the declarations accept such a call.
 */
export function typicalInput(schema: unknown): unknown {
  return typical(schema, schema, 0);
}

type Node = Record<string, unknown>;

function typical(node: unknown, root: unknown, depth: number): unknown {
  if (typeof node !== "object" || node === null || depth > 12) return "example";
  const n = node as Node;
  if (typeof n.$ref === "string") return typical(resolve(n.$ref, root), root, depth + 1);
  if ("const" in n) return n.const;
  if (Array.isArray(n.enum)) return n.enum[0];
  if (n.default !== undefined) return n.default;
  for (const key of ["anyOf", "oneOf", "allOf"])
    if (Array.isArray(n[key])) {
      const options = (n[key] as unknown[]).filter((o) => (o as Node | null)?.type !== "null");
      if (key !== "allOf") return typical(options[0], root, depth + 1);
      return Object.assign({}, ...options.map((o) => typical(o, root, depth + 1)));
    }
  const type = Array.isArray(n.type) ? n.type.find((t) => t !== "null") : n.type;
  switch (type ?? (n.properties ? "object" : undefined)) {
    case "string":
      return n.format === "uri" ? "https://example.com/x" : "example";
    case "number":
    case "integer":
      return typeof n.minimum === "number" ? n.minimum : 1;
    case "boolean":
      return true;
    case "array": {
      const count = typeof n.minItems === "number" ? Math.max(1, n.minItems) : 1;
      return Array.from({ length: count }, () => typical(n.items, root, depth + 1));
    }
    case "object": {
      const properties = (n.properties ?? {}) as Node;
      const required = Array.isArray(n.required) ? (n.required as string[]) : [];
      return Object.fromEntries(required.map((k) => [k, typical(properties[k], root, depth + 1)]));
    }
    default:
      return "example";
  }
}

function resolve(ref: string, root: unknown): unknown {
  if (!ref.startsWith("#/")) return undefined;
  let at: unknown = root;
  for (const part of ref.slice(2).split("/"))
    at = (at as Node | null)?.[decodeURIComponent(part.replaceAll("~1", "/").replaceAll("~0", "~"))];
  return at;
}

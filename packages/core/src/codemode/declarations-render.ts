/**
 * Renders one tool's input type with zod-to-ts and TypeScript's node factory. This is the only part
 * of the declarations that needs TypeScript; declarations.ts loads it on first use, so a process
 * whose tools all come from the declaration cache (declarations-cache.ts) never imports TypeScript.
 */
import ts from "typescript";
import { globalRegistry } from "zod";
import type * as z4 from "zod/v4/core";
import { zodToTs, type AuxiliaryTypeStore, type ZodToTsOptions } from "zod-to-ts";
import { buildValidator } from "../sources/input-schema.ts";
import { prepareJsonSchema } from "../sources/schema-limits.ts";
import { AUX, escapeComment } from "./declarations-text.ts";
import { printType } from "./print-type.ts";

/** Zod def types zod-to-ts 2.1 converts; everything else (transform, custom, ...) becomes `unknown`. */
const CONVERTIBLE = new Set([
  "string",
  "nan",
  "number",
  "bigint",
  "success",
  "boolean",
  "date",
  "undefined",
  "null",
  "void",
  "any",
  "unknown",
  "never",
  "lazy",
  "literal",
  "object",
  "array",
  "enum",
  "union",
  "optional",
  "nullable",
  "tuple",
  "record",
  "map",
  "set",
  "intersection",
  "promise",
  "function",
  "prefault",
  "default",
  "file",
  "pipe",
  "readonly",
  "catch",
  "nonoptional",
  "symbol",
  "template_literal",
]);

/** Recursive schemas need named helper types; they become global `type Input_<path>_<n> = ...` aliases. */
export function printInputType(schema: z4.$ZodType, warnings: string[]): { type: string; aux: string[] } {
  let n = 0;
  const auxiliaryTypeStore: AuxiliaryTypeStore = { nextId: () => `${AUX}${n++}`, definitions: new Map() };
  const options: ZodToTsOptions = {
    auxiliaryTypeStore,
    io: "input",
    unrepresentable: "throw",
    metadataRegistry: describeRegistry,
    overrideFunction: (s, _ts, opts) => overrideSchema(s, opts, schema, warnings),
  };
  const { node } = zodToTs(schema, options);
  // Placeholders are renamed per mount path at assembly (deterministic names, no clashes).
  const aux = [...auxiliaryTypeStore.definitions.values()]
    .filter((d) => d.node)
    .map((d) => `type ${d.identifier.text} = ${printType(d.node.type)};`);
  return { type: printType(node), aux };
}

function overrideSchema(
  s: z4.$ZodType,
  opts: ZodToTsOptions,
  root: z4.$ZodType,
  warnings: string[],
): ts.TypeNode | undefined {
  const def = s._zod.def as z4.$ZodTypeDef & Record<string, any>;
  if (!CONVERTIBLE.has(def.type)) {
    const where = findSchemaPath(root, s);
    warnings.push(
      `${where ? `field "${where}"` : "a field"} uses a "${def.type}" schema that has no TypeScript type; typed as unknown`,
    );
    return ts.factory.createKeywordTypeNode(ts.SyntaxKind.UnknownKeyword);
  }
  if (def.type === "record") return recordType(def, opts);
  if (def.type === "object" && def.catchall?._zod.def.type === "never") return closedObjectType(s, opts);
  return undefined;
}

/**
 * A closed object (JSON Schema `additionalProperties: false`) as its declared properties only:
 * zod-to-ts would add `[x: string]: never`, which every declared property fails, so no literal
 * typechecks. TypeScript's excess property check already refuses unknown keys in a literal, and
 * the validator still does at the call.
 */
function closedObjectType(s: z4.$ZodType, opts: ZodToTsOptions): ts.TypeNode | undefined {
  const strip = (s as { strip?: () => z4.$ZodType }).strip;
  return typeof strip === "function" ? zodToTs(strip.call(s), opts).node : undefined;
}

/** zod-to-ts emits `{ [key: "a" | "b"]: V }` for enum keys, which TypeScript rejects; use Record<K, V> instead. */
function recordType(def: Record<string, any>, opts: ZodToTsOptions): ts.TypeNode | undefined {
  const keyKind = (def.keyType as z4.$ZodType)._zod.def.type;
  if (keyKind === "string" || keyKind === "number" || keyKind === "symbol" || keyKind === "template_literal")
    return undefined;
  const f = ts.factory;
  const key = zodToTs(def.keyType, opts).node;
  const value = zodToTs(def.valueType, opts).node;
  const record = f.createTypeReferenceNode("Record", [key, value]);
  return def.partial || def.mode === "loose" ? f.createTypeReferenceNode("Partial", [record]) : record;
}

/** Dotted field path from the tool's args schema to `target`, for warnings. */
function findSchemaPath(root: z4.$ZodType, target: z4.$ZodType): string | undefined {
  const seen = new Set<unknown>();
  const walk = (s: z4.$ZodType, path: string[]): string[] | undefined => {
    if (s === target) return path;
    if (seen.has(s)) return undefined;
    seen.add(s);
    const def = s._zod.def as Record<string, any>;
    const children: Array<[z4.$ZodType | undefined, string | undefined]> = [];
    if (def.type === "object")
      for (const [k, v] of Object.entries(def.shape ?? {})) children.push([v as z4.$ZodType, k]);
    if (def.type === "array") children.push([def.element, "[]"]);
    for (const k of ["innerType", "in", "out", "valueType", "left", "right"]) children.push([def[k], undefined]);
    for (const o of def.options ?? []) children.push([o, undefined]);
    for (const o of def.items ?? []) children.push([o, undefined]);
    for (const [child, seg] of children) {
      if (!child || typeof child !== "object" || !("_zod" in child)) continue;
      const found = walk(child, seg ? [...path, seg] : path);
      if (found) return found;
    }
    return undefined;
  };
  const found = walk(root, []);
  return found && found.length > 0 ? found.join(".").replaceAll(".[]", "[]") : undefined;
}

/** The global registry, but with descriptions made safe and single-line for a JSDoc comment. */
const describeRegistry = {
  get(schema: z4.$ZodType) {
    const description = globalRegistry.get(schema as never)?.description;
    if (!description) return undefined;
    return { description: escapeComment(description.replace(/\s+/g, " ").trim()) };
  },
} as unknown as z4.$ZodRegistry<{ description?: string }>;

/**
 * The result type from the tool's output JSON Schema, through the same bounded conversion as
 * inputs; its helper aliases are named apart from the input's (`..._o0`). Undefined (the result is
 * `unknown`) when the schema cannot be converted.
 */
export function printOutputType(schema: unknown, warnings: string[]): { type: string; aux: string[] } | undefined {
  const prepared = prepareJsonSchema(schema);
  if (!prepared.ok) {
    warnings.push(`output schema not typed (${prepared.limit}); the result is typed unknown`);
    return undefined;
  }
  // A closed object would print as `[x: string]: never` beside its properties, which TypeScript
  // rejects; a result's extra keys do not matter to the code that reads it.
  openObjects(prepared.schema);
  const built = buildValidator(prepared.schema);
  if (!built.schema) {
    warnings.push(`output schema not typed (${built.problem}); the result is typed unknown`);
    return undefined;
  }
  try {
    const printed = printInputType(built.schema as never, []);
    const apart = (text: string) => text.replaceAll(AUX, `${AUX}o`);
    return { type: apart(printed.type), aux: printed.aux.map(apart) };
  } catch (error) {
    warnings.push(`output schema not typed (${(error as Error).message}); the result is typed unknown`);
    return undefined;
  }
}

/** Drops `additionalProperties: false` throughout a prepared (copied, bounded) schema. */
function openObjects(node: unknown): void {
  if (typeof node !== "object" || node === null) return;
  if (Array.isArray(node)) return node.forEach(openObjects);
  const n = node as Record<string, unknown>;
  if (n.additionalProperties === false) delete n.additionalProperties;
  for (const value of Object.values(n)) openObjects(value);
}

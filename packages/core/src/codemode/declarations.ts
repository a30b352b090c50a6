import type { ToolDefinition, ToolTree } from "@openassistant/sdk";
import ts from "typescript";
import { globalRegistry } from "zod";
import type * as z4 from "zod/v4/core";
import { zodToTs, type AuxiliaryTypeStore, type ZodToTsOptions } from "zod-to-ts";
import { flattenToolTree } from "../tools/flatten.ts";
import { printType } from "./print-type.ts";

export interface GeneratedDeclarations {
  /** `declare const tools: { ... };` — ambient TypeScript the model and the typechecker see. */
  readonly text: string;
  /** sha-256 hex of `text`; stable across processes (usable as a prompt-cache / checker-cache key). */
  readonly hash: string;
  /** Schemas that could not be expressed exactly (typed `unknown` instead), one line each. */
  readonly warnings: readonly string[];
}

/** One tool's rendered parts, independent of where it is mounted in the tree. */
interface RenderedTool {
  readonly id: number;
  /** JSDoc lines without indentation, e.g. ["/** Get weather *\/"]. */
  readonly doc: readonly string[];
  /** `(input: {...}): Promise<unknown>;` with 2-space inner indentation. */
  readonly signature: string;
  /** Global helper type aliases for recursive schemas. */
  readonly aux: readonly string[];
  /** Warnings without the tool path. */
  readonly warnings: readonly string[];
}

const perDefinition = new WeakMap<ToolDefinition, RenderedTool>();
let nextId = 1;

/** Whole-tree results keyed by paths + per-definition ids; a few entries are enough (one tree per workspace). */
const perTree = new Map<string, GeneratedDeclarations>();
const PER_TREE_LIMIT = 8;

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

/**
 * Generates the `tools` declarations for a tree. Cached by identity, not by content: per
 * definition object (WeakMap) and per tree shape (paths + those definitions' ids), so a reload
 * that builds new definitions renders afresh even if they are equal. `hash` is the content hash
 * of the result, for caches downstream.
 */
export function generateDeclarations(tree: ToolTree): GeneratedDeclarations {
  const flat = flattenToolTree(tree);
  const rendered = flat.map((t) => ({ path: t.path, tool: renderCached(t.definition) }));

  let key = "";
  for (const r of rendered) key += `${r.path}#${r.tool.id};`;
  const hit = perTree.get(key);
  if (hit) {
    // refresh recency
    perTree.delete(key);
    perTree.set(key, hit);
    return hit;
  }

  const root: Group = new Map();
  for (const r of rendered) {
    const segments = r.path.split(".");
    let group = root;
    for (const seg of segments.slice(0, -1)) {
      let next = group.get(seg);
      if (!(next instanceof Map)) {
        next = new Map();
        group.set(seg, next);
      }
      group = next;
    }
    group.set(segments[segments.length - 1]!, r.tool);
  }

  const lines: string[] = ["declare const tools: {"];
  emitGroup(root, [], lines);
  lines.push("};");
  for (const r of rendered) for (const alias of r.tool.aux) lines.push(nameAux(alias, r.path));
  const text = `${lines.join("\n")}\n`;
  const warnings = rendered.flatMap((r) => r.tool.warnings.map((w) => `tools.${r.path}: ${w}`));
  const result: GeneratedDeclarations = Object.freeze({ text, hash: sha256(text), warnings: Object.freeze(warnings) });

  perTree.set(key, result);
  if (perTree.size > PER_TREE_LIMIT) perTree.delete(perTree.keys().next().value!);
  return result;
}

const AUX = "__OA_AUX_";

function nameAux(text: string, toolPath: string): string {
  return text.replaceAll(AUX, `Input_${toolPath.replaceAll(".", "_")}_`);
}

type Group = Map<string, Group | RenderedTool>;

function emitGroup(group: Group, path: string[], out: string[]): void {
  const indent = "  ".repeat(path.length + 1);
  for (const name of [...group.keys()].sort()) {
    const node = group.get(name)!;
    if (node instanceof Map) {
      out.push(`${indent}${name}: {`);
      emitGroup(node, [...path, name], out);
      out.push(`${indent}};`);
    } else {
      for (const line of node.doc) out.push(indent + line);
      const signature = node.aux.length > 0 ? nameAux(node.signature, [...path, name].join(".")) : node.signature;
      out.push(indent + name + signature.replaceAll("\n", `\n${indent}`));
    }
  }
}

function renderCached(definition: ToolDefinition): RenderedTool {
  let r = perDefinition.get(definition);
  if (!r) {
    r = renderTool(definition);
    perDefinition.set(definition, r);
  }
  return r;
}

function renderTool(definition: ToolDefinition): RenderedTool {
  const id = nextId++;
  const warnings: string[] = [];
  let input: { type: string; aux: string[] };
  try {
    input = printInputType(definition.args, warnings);
  } catch (error) {
    warnings.push(
      `input schema could not be converted (${(error as Error).message}); typed as Record<string, unknown>`,
    );
    input = { type: "Record<string, unknown>", aux: [] };
  }
  return {
    id,
    doc: toolDoc(definition),
    signature: `(input: ${input.type}): Promise<unknown>;`,
    aux: input.aux,
    warnings,
  };
}

function toolDoc(definition: ToolDefinition): string[] {
  const lines = definition.description
    .trim()
    .split(/\r?\n/)
    .map((l) => escapeComment(l.trimEnd()));
  if (definition.approval === "required")
    lines.push("@remarks Requires operator approval; may reject with ToolDeniedError.");
  if (lines.length === 1) return [`/** ${lines[0]} */`];
  return ["/**", ...lines.map((l) => (l === "" ? " *" : ` * ${l}`)), " */"];
}

/** Recursive schemas need named helper types; they become global `type Input_<path>_<n> = ...` aliases. */
function printInputType(schema: z4.$ZodType, warnings: string[]): { type: string; aux: string[] } {
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
  return undefined;
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

function escapeComment(text: string): string {
  return text.replaceAll("*/", "*\\/");
}

function sha256(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}

/** One tool's declaration as `name(input: {...}): Promise<unknown>;` with its JSDoc (for `tools.$describe`). */
export function declareTool(path: string, definition: ToolDefinition): string {
  const r = renderCached(definition);
  const name = path.split(".").at(-1)!;
  const signature = r.aux.length > 0 ? nameAux(r.signature, path) : r.signature;
  return [...r.doc, `${name}${signature}`, ...r.aux.map((a) => nameAux(a, path))].join("\n");
}

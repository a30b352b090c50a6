import type { ToolDefinition, ToolTree } from "@openassistant/sdk";
import { type JsonInput, jsonInputOf, jsonSchemaTool } from "../sources/json-schema-tool.ts";
import { TimeSlicer } from "../sources/time-slice.ts";
import { flattenToolTree } from "../tools/flatten.ts";
import { type DeclarationCache, fingerprintKey, type RenderedInput } from "./declarations-cache.ts";
import { AUX, escapeComment } from "./declarations-text.ts";

export { type DeclarationCache, openDeclarationCache } from "./declarations-cache.ts";

export interface DeclarationOptions {
  /**
   * Rendered input types from earlier processes (see declarations-cache.ts). With every tool found
   * there, TypeScript is never imported. Without it, the first render imports TypeScript.
   */
  readonly cache?: DeclarationCache;
}

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

/**
 * Generates the `tools` declarations for a tree. Cached by identity, not by content: per
 * definition object (WeakMap) and per tree shape (paths + those definitions' ids), so a reload
 * that builds new definitions renders afresh even if they are equal. `hash` is the content hash
 * of the result, for caches downstream. With `options.cache`, a definition new to this process
 * takes its input type from the cache on disk when its schema's fingerprint is there.
 */
export function generateDeclarations(tree: ToolTree, options: DeclarationOptions = {}): GeneratedDeclarations {
  const steps = declarationSteps(tree, options);
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}

/**
 * `generateDeclarations`, with the event loop let in between stretches of 10 ms (sources/time-slice.ts):
 * the text of thousands of tools (megabytes, hashed whole) is not one stretch on the gateway's thread.
 */
export async function generateDeclarationsSliced(
  tree: ToolTree,
  options: DeclarationOptions = {},
): Promise<GeneratedDeclarations> {
  const slicer = new TimeSlicer();
  const steps = declarationSteps(tree, options);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    await slicer.pause();
  }
}

/** The work of `generateDeclarations`, yielding after each tool and every 256 lines hashed. */
function* declarationSteps(tree: ToolTree, options: DeclarationOptions): Generator<void, GeneratedDeclarations> {
  const flat = flattenToolTree(tree);
  const rendered: Array<{ path: string; tool: RenderedTool }> = [];
  for (const t of flat) {
    rendered.push({ path: t.path, tool: renderCached(t.definition, options.cache) });
    yield;
  }
  options.cache?.flush();

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
  yield* emitGroup(root, [], lines);
  lines.push("};");
  for (const r of rendered) for (const alias of r.tool.aux) lines.push(nameAux(alias, r.path));
  // The hash of `text` (every line and its "\n"), a piece at a time.
  const hasher = new Bun.CryptoHasher("sha256");
  for (let i = 0; i < lines.length; i++) {
    hasher.update(lines[i]!);
    hasher.update("\n");
    if (i % 256 === 255) yield;
  }
  const text = `${lines.join("\n")}\n`;
  const warnings = rendered.flatMap((r) => r.tool.warnings.map((w) => `tools.${r.path}: ${w}`));
  const result: GeneratedDeclarations = Object.freeze({
    text,
    hash: hasher.digest("hex"),
    warnings: Object.freeze(warnings),
  });

  perTree.set(key, result);
  if (perTree.size > PER_TREE_LIMIT) perTree.delete(perTree.keys().next().value!);
  return result;
}

/**
 * Renders every tool of `tree` not rendered yet, one at a time, letting the event loop run between
 * tools once a stretch passes 10 ms (sources/time-slice.ts): a source with many (or large) schemas
 * delays other conversations and `/health` by about one tool's render, not by all of them. Each
 * tool's render is bounded by the schema limits (sources/schema-limits.ts). `generateDeclarations`
 * then finds them rendered.
 */
export async function prerenderDeclarations(tree: ToolTree, options: DeclarationOptions = {}): Promise<void> {
  const slicer = new TimeSlicer();
  for (const t of flattenToolTree(tree)) {
    if (perDefinition.has(t.definition)) continue;
    const json = jsonInputOf(t.definition);
    const offThread = json ? await renderedOffThread(json, options.cache) : undefined;
    if (offThread) perDefinition.set(t.definition, toolOf(t.definition, offThread));
    else renderCached(t.definition, options.cache);
    await slicer.pause();
  }
}

/**
 * A JSON Schema tool's input type (a source's, whose schemas someone else wrote), from the cache or
 * rendered on the source worker: building its validator and printing it take time that grows with
 * the schema, none of it on this thread. Undefined when the worker could not do it (rendered here then).
 */
async function renderedOffThread(
  json: JsonInput,
  cache: DeclarationCache | undefined,
): Promise<RenderedInput | undefined> {
  try {
    const key = `json:${json.key()}`;
    const hit = cache?.get(key);
    if (hit) return hit;
    const { runOffThread } = await import("../sources/source-thread.ts");
    const job = await runOffThread<RenderedInput>({
      kind: "declaration",
      input: { schema: json.schema, ...(json.output !== undefined ? { output: json.output } : {}) },
    });
    cache?.set(key, job.head);
    return job.head;
  } catch {
    return undefined;
  }
}

/** Renders a JSON Schema tool's input (and output) type on this thread: the source worker's side of `prerenderDeclarations`. */
export function renderJsonSchemaInput(schema: unknown, output: unknown): RenderedInput {
  const definition = jsonSchemaTool({
    description: "rendered on the source worker",
    approval: "auto",
    inputSchema: schema,
    ...(output !== undefined ? { outputSchema: output } : {}),
    run: async () => undefined,
  });
  return render(definition, jsonInputOf(definition));
}

function nameAux(text: string, toolPath: string): string {
  return text.replaceAll(AUX, `Input_${toolPath.replaceAll(".", "_")}_`);
}

type Group = Map<string, Group | RenderedTool>;

function* emitGroup(group: Group, path: string[], out: string[]): Generator<void, void> {
  const indent = "  ".repeat(path.length + 1);
  for (const name of [...group.keys()].sort()) {
    const node = group.get(name)!;
    if (node instanceof Map) {
      out.push(`${indent}${name}: {`);
      yield* emitGroup(node, [...path, name], out);
      out.push(`${indent}};`);
    } else {
      yield;
      for (const line of node.doc) out.push(indent + line);
      const signature = node.aux.length > 0 ? nameAux(node.signature, [...path, name].join(".")) : node.signature;
      out.push(indent + name + signature.replaceAll("\n", `\n${indent}`));
    }
  }
}

function renderCached(definition: ToolDefinition, cache?: DeclarationCache): RenderedTool {
  let r = perDefinition.get(definition);
  if (!r) {
    r = renderTool(definition, cache);
    perDefinition.set(definition, r);
  }
  return r;
}

function renderTool(definition: ToolDefinition, cache?: DeclarationCache): RenderedTool {
  return toolOf(definition, renderInput(definition, cache));
}

function toolOf(definition: ToolDefinition, input: RenderedInput): RenderedTool {
  return {
    id: nextId++,
    doc: toolDoc(definition),
    signature: `(input: ${input.type}): Promise<${input.output ?? "unknown"}>;`,
    aux: input.aux,
    warnings: input.warnings,
  };
}

/**
 * The input type from the cache when its key is there, else rendered (and cached). A tool built
 * from a JSON Schema (MCP, OpenAPI) is keyed by the schema's hash, so a hit never builds its zod
 * validator; any other tool by the fingerprint of its zod schema.
 */
function renderInput(definition: ToolDefinition, cache?: DeclarationCache): RenderedInput {
  const json = jsonInputOf(definition);
  let key: string | undefined;
  if (cache) {
    try {
      key = json ? `json:${json.key()}` : fingerprintKey(definition.args);
    } catch {
      key = undefined; // a schema whose getters throw: render it, the renderer reports what is wrong
    }
    const hit = key === undefined ? undefined : cache.get(key);
    if (hit) return hit;
  }
  const rendered = render(definition, json);
  if (cache && key !== undefined) cache.set(key, rendered);
  return rendered;
}

type Renderer = typeof import("./declarations-render.ts");
let renderer: Renderer | undefined;

function render(definition: ToolDefinition, json: JsonInput | undefined): RenderedInput {
  // Loaded on first use: it imports TypeScript (hundreds of ms), which a fully cached start skips.
  renderer ??= require("./declarations-render.ts") as Renderer;
  const warnings: string[] = [];
  // Kept in the cache with the type, so a restart that builds no validator still reports it.
  const problem = json?.problem();
  if (problem)
    warnings.push(
      `${problem}; typed as any object, and any object passes validation here (the server still checks the call)`,
    );
  for (const note of json?.notes() ?? []) warnings.push(note);
  const output = json?.output === undefined ? undefined : renderer.printOutputType(json.output, warnings);
  const withOutput = (r: { type: string; aux: readonly string[] }): RenderedInput => ({
    type: r.type,
    aux: [...r.aux, ...(output?.aux ?? [])],
    warnings,
    ...(output ? { output: output.type } : {}),
  });
  try {
    return withOutput(renderer.printInputType(definition.args, warnings));
  } catch (error) {
    warnings.push(
      `input schema could not be converted (${(error as Error).message}); typed as Record<string, unknown>`,
    );
    return withOutput({ type: "Record<string, unknown>", aux: [] });
  }
}

function toolDoc(definition: ToolDefinition): string[] {
  const lines = definition.description
    .trim()
    .split(/\r?\n/)
    .map((l) => escapeComment(l.trimEnd()));
  if (definition.approval === "required")
    lines.push("@remarks Requires operator approval; may reject with ToolDeniedError.");
  if (definition.idempotent === true && !definition.readOnly)
    lines.push("@remarks Idempotent: calling it again with the same input has no further effect.");
  if (lines.length === 1) return [`/** ${lines[0]} */`];
  return ["/**", ...lines.map((l) => (l === "" ? " *" : ` * ${l}`)), " */"];
}

/** One tool's declaration as `name(input: {...}): Promise<unknown>;` with its JSDoc (for `tools.$describe`). */
export function declareTool(path: string, definition: ToolDefinition): string {
  const r = renderCached(definition);
  const name = path.split(".").at(-1)!;
  const signature = r.aux.length > 0 ? nameAux(r.signature, path) : r.signature;
  return [...r.doc, `${name}${signature}`, ...r.aux.map((a) => nameAux(a, path))].join("\n");
}

import type { ApprovalMode, ToolContext, ToolDefinition } from "@openassistant/sdk";
import { type ConvertedInput, convertInputSchema } from "./input-schema.ts";

/**
 * A tool whose input is a JSON Schema (an MCP tool, an OpenAPI operation). Its zod validator is
 * built on first need (the first call's validation, or a declaration not found in the cache), not
 * when the source loads: GitHub's spec has 1,223 operations, and building all their validators
 * was most of a restart. Everything else reads the JSON Schema: the declaration cache is keyed by
 * its hash, so a restart with a warm cache builds no validator at all.
 */
export interface JsonSchemaToolOptions {
  /** What the tool does; shown to the model. Not empty. */
  readonly description: string;
  readonly approval: ApprovalMode;
  /** It changes nothing outside the gateway (see `defineTool`'s `readOnly`). Default false. */
  readonly readOnly?: boolean;
  /** Running it twice has the effect of running it once (see `defineTool`'s `idempotent`). Default false. */
  readonly idempotent?: boolean;
  /** The input's JSON Schema (plain JSON, not changed afterwards). */
  readonly inputSchema: unknown;
  /** `jsonSchemaKey(inputSchema)` when the source has it already (OpenAPI keeps it in its parse cache). */
  readonly inputSchemaKey?: string;
  /**
   * The result's JSON Schema (an MCP tool's `outputSchema`), when the source declares one: the
   * declaration types the result with it. Checking results against it is the source's job.
   */
  readonly outputSchema?: unknown;
  readonly run: (input: Record<string, unknown>, ctx?: ToolContext) => Promise<unknown>;
}

/** What the declarations read from a JSON Schema tool instead of its zod validator. */
export interface JsonInput {
  readonly schema: unknown;
  /** sha-256 of the schema's JSON text, computed once: equal keys render equal declarations. */
  key(): string;
  /** Why the validator is looser than the schema (builds the validator if not yet built). */
  problem(): string | undefined;
  /** Parts of the schema the validator does not check, e.g. a pattern RE2 cannot run (builds the validator). */
  notes(): readonly string[];
  /** Whether the validator has been built yet. */
  built(): boolean;
  /** Top-level parameter names and descriptions, read from the schema (the validator is not built). */
  parameters(): { names: string[]; docs: string[] };
  /** The result's JSON Schema, when the source declares one (its hash is part of `key()`). */
  readonly output?: unknown;
}

const jsonInputs = new WeakMap<ToolDefinition, JsonInput>();

/** A frozen ToolDefinition like `defineTool`'s, whose `args` is built from `inputSchema` when first read. */
export function jsonSchemaTool(o: JsonSchemaToolOptions): ToolDefinition {
  if (o.description.trim() === "") throw new Error("jsonSchemaTool: a tool needs a non-empty description");
  let converted: ConvertedInput | undefined;
  const convert = () => (converted ??= convertInputSchema(o.inputSchema));
  const definition: ToolDefinition = Object.freeze({
    _tag: "ToolDefinition" as const,
    description: o.description,
    approval: o.approval,
    readOnly: o.readOnly === true,
    idempotent: o.idempotent === true,
    get args() {
      return convert().schema;
    },
    run: o.run,
  });
  let key: string | undefined;
  const withOutput = (k: string) => (o.outputSchema === undefined ? k : `${k}:out:${jsonSchemaKey(o.outputSchema)}`);
  jsonInputs.set(definition, {
    schema: o.inputSchema,
    ...(o.outputSchema !== undefined ? { output: o.outputSchema } : {}),
    key: () => (key ??= withOutput(o.inputSchemaKey ?? jsonSchemaKey(o.inputSchema))),
    problem: () => convert().problem,
    notes: () => convert().notes ?? [],
    built: () => converted !== undefined,
    parameters: () => parameterText(o.inputSchema),
  });
  return definition;
}

/** The JSON Schema side of a tool made by `jsonSchemaTool`; undefined for any other tool. */
export function jsonInputOf(definition: ToolDefinition): JsonInput | undefined {
  return jsonInputs.get(definition);
}

/** sha-256 hex of a JSON Schema's JSON text: what the declaration cache keys a JSON Schema tool by. */
export function jsonSchemaKey(schema: unknown): string {
  return new Bun.CryptoHasher("sha256").update(JSON.stringify(schema) ?? "undefined").digest("hex");
}

/**
 * Names and descriptions of the schema's top-level properties, as the validator built from it
 * carries them: a property's own description first, then the one of the local `$ref` it names.
 */
function parameterText(schema: unknown): { names: string[]; docs: string[] } {
  const properties = (schema as { properties?: unknown } | null)?.properties;
  const names: string[] = [];
  const docs: string[] = [];
  if (typeof properties !== "object" || properties === null) return { names, docs };
  const root = schema as Record<string, Record<string, unknown> | undefined>;
  /** A local `$ref` (`#/$defs/x`, `#/definitions/x`) followed, as the validator's conversion does. */
  const resolved = (node: unknown, depth = 0): unknown => {
    const ref = (node as { $ref?: unknown } | null)?.$ref;
    const m = typeof ref === "string" ? /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref) : null;
    return m && depth < 8 ? resolved(root[m[1]!]?.[decodeURIComponent(m[2]!)], depth + 1) : node;
  };
  for (const [name, property] of Object.entries(properties)) {
    names.push(name);
    // The property's own description first, then its reference's: what the validator's conversion keeps.
    const description =
      (property as { description?: unknown } | null)?.description ??
      (resolved(property) as { description?: unknown } | null)?.description;
    if (typeof description === "string" && description) docs.push(description);
  }
  return { names, docs };
}

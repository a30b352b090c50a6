import { callableName } from "../../tools/names.ts";
import { cutText, ELLIPSIS } from "../../text/cut.ts";
import { defineOwn, ownValue } from "../../tools/own-keys.ts";
import { prepareJsonSchema, SCHEMA_LIMITS } from "../schema-limits.ts";
import { DESCRIPTION_LIMIT, SourceBudget } from "../source-budget.ts";
import { TimeSlicer } from "../time-slice.ts";
import { openApi30ToJsonSchema, SpecSchemaLimitError } from "./json-schema.ts";

/** One operation of a spec, reduced to what a tool needs; plain JSON, so it can be cached. */
export interface OperationDescriptor {
  /** Dotted path below the source's namespace, e.g. `issues.listForRepo`. */
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly description: string;
  readonly params: ReadonlyArray<{ readonly name: string; readonly in: "path" | "query" | "header" }>;
  readonly hasBody: boolean;
  /** JSON Schema of the tool input: parameters by name, plus `body`. */
  readonly inputSchema: Record<string, unknown>;
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"] as const;

type Spec = { paths?: Record<string, Record<string, any>>; components?: Record<string, Record<string, any>> };

/**
 * Reads every operation of an OpenAPI 3.x document. Refs to `components.schemas` stay refs (into
 * `$defs`, only the ones reachable from the operation), so recursive schemas stay finite.
 */
export async function describeOperations(
  spec: Spec,
  header: ReadonlySet<string> = new Set(),
  budget: SourceBudget = new SourceBudget(),
): Promise<OperationDescriptor[]> {
  const out: OperationDescriptor[] = [];
  const slicer = new TimeSlicer();
  const used = new Set<string>();
  const resolve = (node: any): any => {
    for (let i = 0; node?.$ref && i < 10; i++) node = pointer(spec, node.$ref);
    return node;
  };
  for (const [path, item] of Object.entries(spec.paths ?? {})) {
    for (const method of METHODS) {
      const op = item?.[method];
      if (!op) continue;
      await slicer.pause();
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])]
        .map(resolve)
        .filter(
          (p: any) => p && ["path", "query", "header"].includes(p.in) && !header.has(String(p.name).toLowerCase()),
        );
      const properties: Record<string, unknown> = {};
      const required: string[] = [];
      for (const p of params) {
        defineOwn(properties, p.name, {
          ...(p.schema ?? {}),
          ...(p.description ? { description: firstLine(p.description) } : {}),
        });
        if (p.required || p.in === "path") required.push(p.name);
      }
      const body = resolve(op.requestBody);
      const bodySchema = body?.content?.["application/json"]?.schema;
      if (bodySchema) {
        properties.body = { ...bodySchema, ...(body.description ? { description: firstLine(body.description) } : {}) };
        if (body.required) required.push("body");
      }
      const raw = { type: "object", properties, required, additionalProperties: false };
      const name = uniqueName(callableName(String(op.operationId ?? `${method} ${path}`)), used);
      // The operation's own part first, with the limits' own words; the components it reaches next.
      const own = prepareJsonSchema(raw, SCHEMA_LIMITS, { refs: false });
      if (!own.ok) {
        budget.skip(name, own.limit);
        continue;
      }
      let inputSchema: Record<string, unknown>;
      try {
        const defs = reachableSchemas(spec, raw);
        inputSchema = openApi30ToJsonSchema({ ...raw, ...(Object.keys(defs).length ? { $defs: defs } : {}) }, (ref) =>
          ref.replace("#/components/schemas/", "#/$defs/"),
        ) as Record<string, unknown>;
      } catch (error) {
        if (!(error instanceof SpecSchemaLimitError)) throw error;
        budget.skip(name, error.message);
        continue;
      }
      // The spec is someone else's: an operation whose schema is past a limit costs that tool only.
      if (!budget.admit(name, inputSchema)) continue;
      const summary = op.summary ?? firstLine(op.description ?? "");
      out.push({
        name,
        method: method.toUpperCase(),
        path,
        description: cutText(`${summary ? `${summary} — ` : ""}${method.toUpperCase()} ${path}`, DESCRIPTION_LIMIT, {
          marker: ELLIPSIS,
        }),
        params: params.map((p: any) => ({ name: p.name, in: p.in })),
        hasBody: Boolean(bodySchema),
        inputSchema,
      });
    }
  }
  return out;
}

function uniqueName(name: string, used: Set<string>): string {
  let candidate = name || "operation";
  for (let n = 2; used.has(candidate); n++) candidate = `${name}${n}`;
  used.add(candidate);
  return candidate;
}

const REACHABLE_LIMIT = SCHEMA_LIMITS.nodes * 10;

/** The component schemas `root` reaches; each object is visited once (YAML anchors share subtrees). */
function reachableSchemas(spec: Spec, root: unknown): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  const queue = [root];
  const seen = new Set<object>();
  while (queue.length) {
    const node = queue.pop();
    if (typeof node !== "object" || node === null || seen.has(node)) continue;
    seen.add(node);
    // Linear (each object once), so roomier than the schema's own limits, which the conversion checks next.
    if (seen.size > REACHABLE_LIMIT)
      throw new SpecSchemaLimitError(`its input schema reaches more than ${REACHABLE_LIMIT} objects`);
    if (Array.isArray(node)) for (const n of node) queue.push(n);
    else {
      const ref = (node as { $ref?: unknown }).$ref;
      if (typeof ref === "string" && ref.startsWith("#/components/schemas/")) {
        const key = ref.slice("#/components/schemas/".length);
        if (!Object.hasOwn(defs, key)) {
          const schema = ownValue(spec.components?.schemas, key);
          // A missing component stays a dangling $ref: the tool is left out as "a $ref to nowhere".
          if (schema !== undefined) {
            defineOwn(defs, key, schema);
            queue.push(schema);
          }
        }
      }
      for (const v of Object.values(node)) queue.push(v);
    }
  }
  return defs;
}

function pointer(doc: unknown, ref: string): any {
  if (!ref.startsWith("#/")) return undefined;
  return ref
    .slice(2)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce<any>((at, k) => (at !== null && typeof at === "object" ? ownValue(at, k) : undefined), doc);
}

function firstLine(text: unknown): string {
  return String(text).split("\n")[0]!.trim();
}

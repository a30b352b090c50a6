import { callableName } from "../../tools/names.ts";
import { cutText, ELLIPSIS } from "../../text/cut.ts";
import { escapeInvisible } from "../../text/escape.ts";
import { defineOwn, ownValue } from "../../tools/own-keys.ts";
import { prepareJsonSchema, SCHEMA_LIMITS } from "../schema-limits.ts";
import { DESCRIPTION_LIMIT, SourceBudget } from "../source-budget.ts";
import { TimeSlicer } from "../time-slice.ts";
import { openApi30ToJsonSchema, SpecSchemaLimitError } from "./json-schema.ts";
import { type BodyDescriptor, chooseBody } from "./request-body.ts";
import { type ParamIn, type ParamSerialization, serializationOf } from "./serialize.ts";

/** One parameter: where it goes, under which input key, and how it is serialized. */
export interface ParamDescriptor extends ParamSerialization {
  /** The name the spec gives it (the query key, header or cookie name, or the path's `{name}`). */
  readonly name: string;
  readonly in: ParamIn;
  /** Its key in the tool's input: the name, or `<in>_<name>` when another place uses the name too. */
  readonly key: string;
}

/** One operation of a spec, reduced to what a tool needs; plain JSON, so it can be cached. */
export interface OperationDescriptor {
  /** Dotted path below the source's namespace, e.g. `issues.listForRepo`. */
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly description: string;
  readonly params: readonly ParamDescriptor[];
  /** How the request body is sent; absent when the operation has none. */
  readonly body?: BodyDescriptor;
  /** JSON Schema of the tool input: parameters by key, plus `body`. */
  readonly inputSchema: Record<string, unknown>;
}

/** A warning about an operation that still loads (its name was taken, so it got another). */
export interface OperationNotice {
  readonly tool: string;
  readonly reason: string;
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;
const PLACES: readonly ParamIn[] = ["path", "query", "header", "cookie"];
/** Header parameters OpenAPI says to ignore (§4.8.12.1): the request's own headers set them. */
const IGNORED_HEADERS = new Set(["accept", "content-type", "authorization"]);

type Spec = { paths?: Record<string, Record<string, any>>; components?: Record<string, Record<string, any>> };

/**
 * Reads every operation of an OpenAPI 3.x document. Local refs stay refs (into `$defs`, only the
 * ones reachable from the operation), so recursive schemas stay finite.
 */
export async function describeOperations(
  spec: Spec,
  header: ReadonlySet<string> = new Set(),
  budget: SourceBudget = new SourceBudget(),
  notices: OperationNotice[] = [],
): Promise<OperationDescriptor[]> {
  const out: OperationDescriptor[] = [];
  const slicer = new TimeSlicer();
  const used = new Map<string, string>();
  const refs = new RefTable(spec);
  const resolve = (node: any): any => {
    for (let i = 0; node?.$ref && i < 10; i++) node = pointer(spec, node.$ref);
    return node;
  };
  for (const [path, item] of Object.entries(spec.paths ?? {})) {
    for (const method of METHODS) {
      const op = ownValue(item ?? undefined, method);
      if (!op || typeof op !== "object") continue;
      await slicer.pause();
      const operation = `${method.toUpperCase()} ${path}`;
      const name = uniqueName(callableName(String(op.operationId ?? `${method} ${path}`)), operation, used, notices);
      const params = parametersOf([...(item.parameters ?? []), ...(op.parameters ?? [])].map(resolve), header);
      const properties: Record<string, unknown> = {};
      const required: string[] = [];
      for (const p of params.list) {
        const schema = p.spec.schema ?? firstContentSchema(p.spec.content) ?? {};
        const renamed = p.key !== p.name ? `${p.in} parameter "${p.name}"` : "";
        const said = [renamed, p.spec.description ? firstLine(p.spec.description) : ""].filter(Boolean).join(": ");
        defineOwn(properties, p.key, { ...schema, ...(said ? { description: said } : {}) });
        if (p.spec.required || p.in === "path") required.push(p.key);
      }
      const requestBody = resolve(op.requestBody);
      let body: BodyDescriptor | undefined;
      // GET and HEAD bodies have no meaning (RFC 9110 §9.3.1) and fetch cannot send one; OpenAPI 3.0.3 §4.7.10.1 says to ignore them.
      if (requestBody?.content && (method === "get" || method === "head")) {
        if (declaresFields(requestBody.content, resolve))
          notices.push({
            tool: name,
            reason: `${operation} declares a request body, which a ${method.toUpperCase()} request cannot carry: it is not an input`,
          });
      } else if (
        requestBody?.content &&
        typeof requestBody.content === "object" &&
        Object.keys(requestBody.content).length > 0
      ) {
        const choice = chooseBody(requestBody.content, resolve);
        if (!choice.ok) {
          budget.skip(name, choice.reason);
          continue;
        }
        body = choice.body;
        properties.body = {
          ...((choice.schema as object | undefined) ?? {}),
          ...(requestBody.description ? { description: firstLine(requestBody.description) } : {}),
        };
        if (requestBody.required) required.push("body");
      }
      const raw = { type: "object", properties, required, additionalProperties: false };
      // The operation's own part first, with the limits' own words; the components it reaches next.
      const own = prepareJsonSchema(raw, SCHEMA_LIMITS, { refs: false });
      if (!own.ok) {
        budget.skip(name, own.limit);
        continue;
      }
      let inputSchema: Record<string, unknown>;
      try {
        const defs = reachableSchemas(refs, raw);
        inputSchema = openApi30ToJsonSchema(
          { ...raw, ...(Object.keys(defs).length ? { $defs: defs } : {}) },
          (ref) => refs.local(ref),
          undefined,
          0,
          (ref) => refs.target(ref)?.schema,
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
        description: cutText(`${summary ? `${summary} — ` : ""}${operation}`, DESCRIPTION_LIMIT, {
          marker: ELLIPSIS,
        }),
        params: params.list.map(({ spec: _spec, ...p }) => p),
        ...(body ? { body } : {}),
        inputSchema,
      });
    }
  }
  return out;
}

/**
 * An operation's parameters: the operation's own replace the path item's of the same name and
 * place (§4.8.10.1); each gets an input key. A name used in two places keeps the name in the first
 * of path, query, header, cookie; the others become `<in>_<name>` (`header_id`), and `body` is
 * always the request body's.
 */
function parametersOf(raw: any[], hidden: ReadonlySet<string>): { list: Array<ParamDescriptor & { spec: any }> } {
  const byPlace = new Map<string, any>();
  for (const p of raw) {
    if (!p || typeof p.name !== "string" || !PLACES.includes(p.in)) continue;
    const lower = p.name.toLowerCase();
    if (p.in === "header" && (hidden.has(lower) || IGNORED_HEADERS.has(lower))) continue;
    byPlace.set(`${p.in}\0${p.in === "header" ? lower : p.name}`, p);
  }
  const ordered = [...byPlace.values()].sort((a, b) => PLACES.indexOf(a.in) - PLACES.indexOf(b.in));
  const keys = new Set<string>(["body"]);
  const list: Array<ParamDescriptor & { spec: any }> = [];
  for (const p of ordered) {
    let key = keys.has(p.name) ? `${p.in}_${p.name}` : p.name;
    while (keys.has(key)) key = `_${key}`;
    keys.add(key);
    list.push({ name: p.name, in: p.in, key, ...serializationOf(p.in, p), spec: p });
  }
  return { list };
}

/** Whether any media type's schema of a body names a field or is required to have one (Stripe's GETs declare empty ones). */
function declaresFields(content: unknown, resolve: (n: unknown) => any): boolean {
  if (typeof content !== "object" || content === null) return false;
  return Object.values(content).some((m) => {
    const schema = resolve((m as { schema?: unknown } | null)?.schema);
    if (!schema || typeof schema !== "object") return false;
    return Object.keys(schema.properties ?? {}).length > 0 || (schema.type !== undefined && schema.type !== "object");
  });
}

function firstContentSchema(content: unknown): unknown {
  if (typeof content !== "object" || content === null) return undefined;
  const first = Object.values(content)[0] as { schema?: unknown } | undefined;
  return first?.schema;
}

/**
 * The operation's name, or, when an earlier operation of the spec has it, the name with the
 * lowest free number (`list2`): deterministic (the spec's order), and said in a notice.
 */
function uniqueName(name: string, operation: string, used: Map<string, string>, notices: OperationNotice[]): string {
  const base = name || "operation";
  let candidate = base;
  for (let n = 2; used.has(candidate); n++) candidate = `${base}${n}`;
  if (candidate !== base)
    notices.push({
      tool: candidate,
      reason: `${escapeInvisible(cutText(operation, 300, { marker: ELLIPSIS }))} is named "${candidate}": "${base}" is already ${escapeInvisible(cutText(used.get(base)!, 300, { marker: ELLIPSIS }))} (give the operations distinct operationIds)`,
    });
  used.set(candidate, operation);
  return candidate;
}

const REACHABLE_LIMIT = SCHEMA_LIMITS.nodes * 10;

/** The schemas `root` reaches through local refs, keyed as `refs` names them; each object is visited once (YAML anchors share subtrees). */
function reachableSchemas(refs: RefTable, root: unknown): Record<string, unknown> {
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
      const target = typeof ref === "string" ? refs.target(ref) : undefined;
      // A missing target stays a dangling $ref: the tool is left out as "a $ref to nowhere".
      if (target && !Object.hasOwn(defs, target.key)) {
        defineOwn(defs, target.key, target.schema);
        queue.push(target.schema);
      }
      for (const v of Object.values(node)) queue.push(v);
    }
  }
  return defs;
}

/**
 * Names for the `$defs` of the input schemas, one per local ref target: `#/components/schemas/Pet`
 * is `Pet`; any other pointer (escaped `~0` / `~1`, percent-encoded, into `paths` or a schema's
 * `properties`) gets a name made of its tokens, numbered when two would be equal.
 */
class RefTable {
  private readonly keys = new Map<string, string>();
  private readonly taken = new Set<string>();

  constructor(private readonly spec: Spec) {}

  /** The `$defs` key and schema a ref points at, or undefined when it points nowhere. */
  target(ref: string): { key: string; schema: unknown } | undefined {
    const tokens = pointerTokens(ref);
    if (!tokens) return undefined;
    const schema = walk(this.spec, tokens);
    if (schema === undefined) return undefined;
    return { key: this.keyOf(ref, tokens), schema };
  }

  /** The ref as the input schema holds it: `#/$defs/<key>` (a dangling one too, which the limits then name); a non-local ref unchanged. */
  local(ref: string): string {
    const tokens = pointerTokens(ref);
    return tokens ? `#/$defs/${this.keyOf(ref, tokens)}` : ref;
  }

  private keyOf(ref: string, tokens: string[]): string {
    const known = this.keys.get(ref);
    if (known !== undefined) return known;
    const simple =
      tokens.length === 3 && tokens[0] === "components" && tokens[1] === "schemas" ? tokens[2]! : undefined;
    let key =
      simple && /^[A-Za-z0-9_.-]+$/.test(simple)
        ? simple
        : tokens
            .join("_")
            .replace(/[^A-Za-z0-9_.-]+/g, "_")
            .slice(-100) || "ref";
    const base = key;
    for (let n = 2; this.taken.has(key); n++) key = `${base}_${n}`;
    this.taken.add(key);
    this.keys.set(ref, key);
    return key;
  }
}

/** A local JSON pointer's reference tokens (RFC 6901 §3-§6: percent-decoded as a URI fragment, then `~1` → `/`, `~0` → `~`). */
function pointerTokens(ref: string): string[] | undefined {
  if (!ref.startsWith("#/")) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(2));
  } catch {
    return undefined;
  }
  return fragment.split("/").map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function walk(doc: unknown, tokens: readonly string[]): any {
  return tokens.reduce<any>((at, k) => (at !== null && typeof at === "object" ? ownValue(at, k) : undefined), doc);
}

function pointer(doc: unknown, ref: string): any {
  const tokens = pointerTokens(ref);
  return tokens ? walk(doc, tokens) : undefined;
}

function firstLine(text: unknown): string {
  return String(text).split("\n")[0]!.trim();
}

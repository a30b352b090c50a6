import Ajv, { type ValidateFunction } from "ajv";

/**
 * Checks HTTP requests against an OpenAPI 3.0 description: the operation exists (method + path
 * template), required parameters are present, path/query parameters and the JSON body match their
 * schemas, and no query parameter is sent that the operation does not declare. Fakes use it so a
 * request the real service would reject fails the test that sent it.
 */
export interface OpenApiRequest {
  readonly method: string;
  /** Path without the server's base path, e.g. `/repos/o/r/issues`. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** Parsed JSON body, or undefined when there is none. */
  readonly body: unknown;
}

export interface MatchedOperation {
  readonly operationId: string;
  readonly template: string;
  readonly pathParams: Record<string, string>;
}

export type Validation =
  | { ok: true; operation: MatchedOperation }
  | { ok: false; status: 404 | 422; problems: string[]; operation?: MatchedOperation };

interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  schema?: Record<string, unknown>;
}

interface Route {
  readonly template: string;
  readonly regex: RegExp;
  readonly names: string[];
}

type Spec = { paths: Record<string, Record<string, any>>; components?: Record<string, Record<string, unknown>> };

export class OpenApiRequestValidator {
  private readonly ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, coerceTypes: false });
  private readonly routes: Route[];
  private readonly compiled = new Map<string, ValidateFunction>();

  private readonly spec: Spec;

  constructor(spec: Spec) {
    this.spec = fromOpenApi30(spec) as Spec;
    this.ajv.addSchema(this.spec as object, "spec");
    // Literal segments beat templated ones (`/repos/{o}/{r}/issues/comments` before `/{issue_number}`).
    this.routes = Object.keys(spec.paths)
      .map((template) => {
        const names: string[] = [];
        const pattern = template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{([^}]+)\}/g, (_m, name: string) => {
          names.push(name);
          return "([^/]+)";
        });
        return { template, regex: new RegExp(`^${pattern}$`), names };
      })
      .sort((a, b) => a.names.length - b.names.length);
  }

  validate(req: OpenApiRequest): Validation {
    const method = req.method.toLowerCase();
    const candidates = this.routes.filter((r) => r.regex.test(req.path));
    const route = candidates.find((r) => this.spec.paths[r.template]?.[method]);
    if (!route)
      return { ok: false, status: 404, problems: [`no operation ${req.method} ${req.path} in the API description`] };
    const op = this.spec.paths[route.template]![method];
    const values = route.regex.exec(req.path)!.slice(1).map(decodeURIComponent);
    const pathParams = Object.fromEntries(route.names.map((n, i) => [n, values[i]!]));
    const operation: MatchedOperation = { operationId: op.operationId, template: route.template, pathParams };
    const problems: string[] = [];
    const params = [...(this.spec.paths[route.template]!.parameters ?? []), ...(op.parameters ?? [])].map(
      (p: unknown) => this.resolve(p) as Parameter,
    );
    for (const p of params.filter((x) => x.in === "path"))
      this.check(problems, `path parameter "${p.name}"`, p.schema, coerce(pathParams[p.name]!, p.schema));
    const declared = new Set(params.filter((p) => p.in === "query").map((p) => p.name));
    for (const p of params.filter((x) => x.in === "query")) {
      const raw = req.query.getAll(p.name);
      if (raw.length === 0) {
        if (p.required) problems.push(`query parameter "${p.name}" is required`);
        continue;
      }
      const value =
        p.schema?.type === "array"
          ? raw.flatMap((v) => v.split(",")).map((v) => coerce(v, p.schema?.items as never))
          : coerce(raw[0]!, p.schema);
      this.check(problems, `query parameter "${p.name}"`, p.schema, value);
    }
    for (const name of new Set(req.query.keys()))
      if (!declared.has(name)) problems.push(`query parameter "${name}" is not accepted by ${op.operationId}`);
    const body = this.resolve(op.requestBody) as
      | { required?: boolean; content?: Record<string, { schema?: unknown }> }
      | undefined;
    if (req.body !== undefined) {
      const schema = body?.content?.["application/json"]?.schema;
      if (!body) problems.push(`${op.operationId} takes no request body`);
      else if (schema) this.check(problems, "body", { $ref: pointer(route.template, method) }, req.body);
    } else if (body?.required) problems.push(`${op.operationId} requires a JSON body`);
    return problems.length ? { ok: false, status: 422, problems, operation } : { ok: true, operation };
  }

  private check(problems: string[], what: string, schema: unknown, value: unknown): void {
    if (!schema) return;
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (!validate) {
      // Inline parameter schemas may still hold `#/components/...` refs: resolve them inside the spec.
      validate = this.ajv.compile(rebase(schema) as object);
      this.compiled.set(key, validate);
    }
    if (!validate(value))
      problems.push(`${what}: ${this.ajv.errorsText(validate.errors, { dataVar: what.split(" ")[0] })}`);
  }

  /** Follows a local `$ref` (`#/components/parameters/owner`). */
  private resolve(node: unknown): unknown {
    let current = node as { $ref?: string } | undefined;
    for (let hops = 0; current?.$ref && hops < 10; hops++) {
      current = current.$ref
        .slice(2)
        .split("/")
        .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
        .reduce<any>((at, key) => at?.[key], this.spec);
    }
    return current;
  }
}

function pointer(template: string, method: string): string {
  // JSON Pointer escaping, then URI escaping for the fragment (`{owner}` is not valid in a URI).
  const esc = (s: string) => encodeURIComponent(s.replace(/~/g, "~0").replace(/\//g, "~1"));
  return `spec#/paths/${esc(template)}/${method}/requestBody/content/${esc("application/json")}/schema`;
}

/** Points `#/…` refs of a schema taken out of the spec back at the spec. */
function rebase(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (typeof schema !== "object" || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema))
    out[k] = k === "$ref" && typeof v === "string" && v.startsWith("#/") ? `spec${v}` : rebase(v);
  return out;
}

/** Query and path values arrive as text; turn them into the type their schema declares. */
function coerce(raw: string, schema: Record<string, unknown> | undefined): unknown {
  const type = schema?.type;
  if ((type === "integer" || type === "number") && raw.trim() !== "" && !Number.isNaN(Number(raw))) return Number(raw);
  if (type === "boolean" && (raw === "true" || raw === "false")) return raw === "true";
  return raw;
}

/**
 * OpenAPI 3.0 schemas are not JSON Schema: `nullable: true` means "or null"
 * (https://spec.openapis.org/oas/v3.0.3#fixed-fields-19). Rewritten into JSON Schema for Ajv.
 */
function fromOpenApi30(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(fromOpenApi30);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) if (k !== "nullable") out[k] = fromOpenApi30(v);
  if ((node as { nullable?: unknown }).nullable !== true) return out;
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (typeof out.type === "string") return { ...out, type: [out.type, "null"] };
  return { anyOf: [out, { type: "null" }] };
}

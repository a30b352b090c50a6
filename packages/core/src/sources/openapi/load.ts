import type { ToolDefinition, ToolTree } from "@openassistant/sdk";
import { jsonSchemaTool } from "../json-schema-tool.ts";
import { ownValue } from "../../tools/own-keys.ts";
import { type Credentials, fetchKeepingCredentials } from "../credential-redirects.ts";
import type { SkippedTool } from "../source-budget.ts";
import { pullItems, releaseItems, runOffThread } from "../source-thread.ts";
import { TimeSlicer } from "../time-slice.ts";
import type { OperationDescriptor, OperationNotice } from "./operations.ts";
import type { KeyedOperation, SpecHead } from "./parse-spec.ts";
import { buildRequest } from "./build-request.ts";

export type OpenApiAuth =
  | { readonly type: "bearer"; readonly token: string }
  | { readonly type: "header"; readonly name: string; readonly value: string }
  | { readonly type: "query"; readonly name: string; readonly value: string };

export interface OpenApiSourceOptions {
  /** Namespace of the tools: `tools.<name>.<operation>`. */
  readonly name: string;
  /** A spec file (JSON or YAML) or an http(s) URL. */
  readonly spec: string;
  /** Where requests go; default: the spec's first `servers` entry. */
  readonly baseUrl?: string;
  /** Added on the host to every request; never part of a tool's input, never seen by the sandbox. */
  readonly auth?: OpenApiAuth;
  /**
   * Parsed operations are cached here by the spec's SHA-256 (parsing GitHub's spec takes seconds) and
   * the name of the header `auth` sets, if any.
   */
  readonly cacheDir?: string;
}

export interface OpenApiSource {
  readonly tree: ToolTree;
  readonly operations: number;
  readonly fromCache: boolean;
  readonly baseUrl: string;
  /** Operations left out (an input schema past a limit, a body that cannot be built), each with why. */
  readonly skipped: readonly SkippedTool[];
  /** Operations that load, with something to say (a name taken by an earlier operation). */
  readonly notices: readonly OperationNotice[];
}

/**
 * Turns an OpenAPI 3.x spec into tools: one per operation, typed from its parameters and body.
 * The spec is read, parsed (or its parse cache read) and described on the source worker
 * (parse-spec.ts); this thread receives the operations in bounded chunks and builds the tree in
 * time slices, so a spec of any size never holds the gateway's event loop for long.
 */
export async function loadOpenApiSource(o: OpenApiSourceOptions): Promise<OpenApiSource> {
  const authHeader = o.auth?.type === "header" ? o.auth.name.toLowerCase() : "authorization";
  const job = await runOffThread<SpecHead>({
    kind: "openapi",
    input: { spec: o.spec, authHeader, ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}) },
  });
  const { head } = job;
  const baseUrl = (o.baseUrl ?? head.servers[0] ?? "").replace(/\/$/, "");
  if (!/^https?:\/\//.test(baseUrl)) {
    releaseItems(job.id);
    throw new Error(`no base URL for ${o.name}: set openapi.${o.name}.baseUrl (the spec lists no absolute server)`);
  }
  const tree: Record<string, unknown> = {};
  const slicer = new TimeSlicer();
  for await (const chunk of pullItems<KeyedOperation>(job.id, job.count))
    for (const { op, key } of chunk) {
      setPath(tree, op.name.split("."), operationTool(op, baseUrl, o.auth, key));
      await slicer.pause();
    }
  return {
    tree: tree as ToolTree,
    operations: job.count,
    fromCache: head.fromCache,
    baseUrl,
    skipped: head.skipped,
    notices: head.notices,
  };
}

/** RFC 9110 §9.2.2: the safe methods, PUT and DELETE are idempotent; POST and PATCH are not. */
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]);

/** One operation as a tool; its validator is built from `op.inputSchema` on first need (json-schema-tool.ts). */
function operationTool(
  op: OperationDescriptor,
  baseUrl: string,
  auth: OpenApiAuth | undefined,
  inputSchemaKey: string,
): ToolDefinition {
  return jsonSchemaTool({
    description: op.description,
    approval: op.method === "GET" || op.method === "HEAD" ? "auto" : "required",
    // GET and HEAD are safe methods (RFC 9110 §9.2.1): the call changes nothing on the server.
    readOnly: op.method === "GET" || op.method === "HEAD",
    idempotent: IDEMPOTENT_METHODS.has(op.method),
    inputSchema: op.inputSchema,
    inputSchemaKey,
    run: async (input, call) => {
      const request = buildRequest(op, baseUrl, input);
      const { url, headers } = request;
      if (auth?.type === "bearer") headers.authorization = `Bearer ${auth.token}`;
      if (auth?.type === "header") headers[auth.name] = auth.value;
      if (auth?.type === "query") url.searchParams.set(auth.name, auth.value);
      const hasBody = request.body !== undefined;
      // Redirects are followed by hand: a hop to another origin goes without the credential.
      const res = await fetchKeepingCredentials(
        url,
        {
          method: op.method,
          headers,
          ...(hasBody ? { body: request.body } : {}),
          ...(call?.signal ? { signal: call.signal } : {}),
        },
        credentialsOf(auth),
      );
      const type = res.headers.get("content-type") ?? "";
      const body =
        res.status === 204 ? null : type.includes("json") ? await res.json().catch(() => null) : await res.text();
      if (!res.ok)
        throw new Error(
          `${op.method} ${op.path} answered ${res.status}: ${typeof body === "string" ? body.slice(0, 500) : JSON.stringify(body)?.slice(0, 500)}`,
        );
      return body;
    },
  });
}

function credentialsOf(auth: OpenApiAuth | undefined): Credentials {
  if (auth?.type === "header") return { headers: [auth.name], query: [] };
  if (auth?.type === "query") return { headers: [], query: [auth.name] };
  return { headers: ["authorization"], query: [] };
}

function setPath(tree: Record<string, unknown>, segments: string[], leaf: unknown): void {
  let node = tree;
  for (const seg of segments.slice(0, -1)) {
    // Own keys only: an operationId segment like `constructor` must not find Object.prototype's.
    const next = ownValue(node, seg);
    // A name that is both an operation and a group keeps the operation under `_`.
    if (next === undefined || (typeof next === "object" && (next as { _tag?: string })._tag === "ToolDefinition")) {
      const group: Record<string, unknown> = {};
      if (next !== undefined) group._ = next;
      Object.defineProperty(node, seg, { value: group, enumerable: true, writable: true, configurable: true });
    }
    node = node[seg] as Record<string, unknown>;
  }
  const last = segments.at(-1)!;
  const existing = ownValue(node, last);
  if (
    existing !== undefined &&
    typeof existing === "object" &&
    (existing as { _tag?: string })._tag !== "ToolDefinition"
  )
    (existing as Record<string, unknown>)._ = leaf;
  else Object.defineProperty(node, last, { value: leaf, enumerable: true, writable: true, configurable: true });
}

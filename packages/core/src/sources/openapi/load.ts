import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolDefinition, ToolTree } from "@openassistant/sdk";
import { jsonSchemaKey, jsonSchemaTool } from "../json-schema-tool.ts";
import { ownValue } from "../../tools/own-keys.ts";
import { type Credentials, fetchKeepingCredentials } from "../credential-redirects.ts";
import { OPENAPI_SOURCE_LIMITS, type SkippedTool, SourceBudget } from "../source-budget.ts";
import { TimeSlicer } from "../time-slice.ts";
import { describeOperations, type OperationDescriptor, type OperationNotice } from "./operations.ts";
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

/** Bumped when what a parse keeps changes: a cache file of another version is parsed again. */
const PARSE_VERSION = 3;
/** Bytes of a spec (GitHub's is 13 MB): parsing it is one stretch of work on the gateway's thread. */
export const SPEC_BYTES_LIMIT = 32 * 1024 * 1024;

interface Parsed {
  readonly version?: number;
  readonly servers: string[];
  readonly operations: OperationDescriptor[];
  /** Operations left out, with the limit each went past (sources/source-budget.ts). */
  readonly skipped?: SkippedTool[];
  /** `jsonSchemaKey` of each operation's input schema (absent in caches written before it was kept). */
  readonly inputSchemaKeys?: string[];
  /** Operations that load under another name than their own (it was taken). */
  readonly notices?: OperationNotice[];
  /** The document was Swagger 2.0, converted to OpenAPI 3.1 at parse. */
  readonly converted?: string;
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

/** Turns an OpenAPI 3.x spec into tools: one per operation, typed from its parameters and body. */
export async function loadOpenApiSource(o: OpenApiSourceOptions): Promise<OpenApiSource> {
  // Bytes, not text: decoding GitHub's 13 MB and hashing the string cost a restart more than the rest of this step.
  const bytes = /^https?:\/\//.test(o.spec)
    ? Buffer.from(await (await fetch(o.spec)).arrayBuffer())
    : readFileSync(o.spec);
  if (bytes.length > SPEC_BYTES_LIMIT)
    throw new Error(`${o.spec} has ${bytes.length} bytes, more than an OpenAPI source may have (${SPEC_BYTES_LIMIT})`);
  const sha = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
  // A header the auth sets is no tool's input: the parse depends on its name, and so does the cache file.
  const authHeader = o.auth?.type === "header" ? o.auth.name.toLowerCase() : "authorization";
  const hidden = new Set([authHeader, "authorization"]);
  const variant =
    authHeader === "authorization"
      ? ""
      : `-${new Bun.CryptoHasher("sha256").update(authHeader).digest("hex").slice(0, 16)}`;
  const cacheFile = o.cacheDir ? join(o.cacheDir, `openapi-${sha}${variant}.json`) : undefined;
  let parsed: Parsed | undefined;
  let fromCache = false;
  if (cacheFile && existsSync(cacheFile)) {
    try {
      const cached = JSON.parse(readFileSync(cacheFile, "utf8")) as Parsed;
      // A cache from before the limits (no version) may hold operations they now leave out.
      if (cached.version === PARSE_VERSION) {
        parsed = cached;
        fromCache = true;
      }
    } catch {
      parsed = undefined; // a torn cache file is rebuilt
    }
  }
  if (!parsed) {
    // Only a cache miss parses, so only a miss pays for importing the parser (~80 ms).
    const { default: SwaggerParser } = await import("@apidevtools/swagger-parser");
    const text = bytes.toString("utf8");
    const parsedDoc = (await SwaggerParser.parse(text.trimStart().startsWith("{") ? JSON.parse(text) : o.spec).catch(
      (error: unknown) => {
        throw new Error(`${o.spec}: ${error instanceof Error ? error.message : String(error)}`);
      },
    )) as { swagger?: string; openapi?: string };
    const doc = await openApi3(parsedDoc, o.spec);
    const budget = new SourceBudget(OPENAPI_SOURCE_LIMITS);
    const notices: OperationNotice[] = [];
    const operations = await describeOperations(doc as never, hidden, budget, notices);
    parsed = {
      version: PARSE_VERSION,
      servers: (doc.servers ?? []).map((s) => s.url),
      operations,
      skipped: budget.skipped,
      notices,
      ...(parsedDoc.swagger ? { converted: parsedDoc.swagger } : {}),
    };
  }
  // Keyed once here (and kept in the cache, also one written before the keys were): a restart hashes nothing.
  const keys =
    parsed.inputSchemaKeys?.length === parsed.operations.length
      ? parsed.inputSchemaKeys
      : await keysOf(parsed.operations);
  if (keys !== parsed.inputSchemaKeys) {
    parsed = { ...parsed, inputSchemaKeys: keys };
    if (cacheFile) {
      mkdirSync(o.cacheDir!, { recursive: true });
      writeFileSync(cacheFile, JSON.stringify(parsed));
    }
  }
  const baseUrl = (o.baseUrl ?? parsed.servers[0] ?? "").replace(/\/$/, "");
  if (!/^https?:\/\//.test(baseUrl))
    throw new Error(`no base URL for ${o.name}: set openapi.${o.name}.baseUrl (the spec lists no absolute server)`);
  const tree: Record<string, unknown> = {};
  parsed.operations.forEach((op, i) => setPath(tree, op.name.split("."), operationTool(op, baseUrl, o.auth, keys[i]!)));
  return {
    tree: tree as ToolTree,
    operations: parsed.operations.length,
    fromCache,
    baseUrl,
    skipped: parsed.skipped ?? [],
    notices: parsed.notices ?? [],
  };
}

/**
 * The document as OpenAPI 3.x: Swagger 2.0 is converted to 3.1 by Scalar's upgrader
 * (`@scalar/openapi-upgrader`: body and formData parameters become a request body,
 * `collectionFormat` a style, `definitions` components), loaded only for a Swagger document.
 */
async function openApi3(
  doc: { swagger?: string; openapi?: string },
  spec: string,
): Promise<{ servers?: Array<{ url: string }> }> {
  if (typeof doc.openapi === "string" && doc.openapi.startsWith("3."))
    return doc as { servers?: Array<{ url: string }> };
  if (doc.swagger === "2.0") {
    const { upgrade } = await import("@scalar/openapi-upgrader");
    return upgrade(doc as never, "3.1") as never;
  }
  throw new Error(
    `${spec} is neither OpenAPI 3.x nor Swagger 2.0 (its version field says ${JSON.stringify(doc.openapi ?? doc.swagger ?? null)})`,
  );
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

/** `jsonSchemaKey` of each operation's input, the event loop let in between stretches. */
async function keysOf(operations: readonly OperationDescriptor[]): Promise<string[]> {
  const slicer = new TimeSlicer();
  const keys: string[] = [];
  for (const op of operations) {
    keys.push(jsonSchemaKey(op.inputSchema));
    await slicer.pause();
  }
  return keys;
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

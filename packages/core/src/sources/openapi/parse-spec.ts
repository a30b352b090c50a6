import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { jsonSchemaKey } from "../json-schema-tool.ts";
import { OPENAPI_SOURCE_LIMITS, type SkippedTool, SourceBudget } from "../source-budget.ts";
import type { JobResult } from "../source-thread-protocol.ts";
import { TimeSlicer } from "../time-slice.ts";
import { describeOperations, type OperationDescriptor, type OperationNotice } from "./operations.ts";

/**
 * A spec read, parsed and described — all of it in the source worker (source-worker.ts), never on
 * the gateway's thread: the spec's size is its author's choice (up to `SPEC_BYTES_LIMIT`), and
 * `JSON.parse`, swagger-parser and the parse cache's `JSON.parse` each take it whole.
 */
export interface SpecInput {
  /** A spec file (JSON or YAML) or an http(s) URL. */
  readonly spec: string;
  readonly cacheDir?: string;
  /** Lower-cased name of the header the source's auth sets ("authorization" by default): no tool's input. */
  readonly authHeader: string;
}

/** What the gateway gets first; the operations follow in chunks, each with its input schema's key. */
export interface SpecHead {
  readonly servers: string[];
  readonly skipped: SkippedTool[];
  readonly notices: OperationNotice[];
  readonly fromCache: boolean;
}

export interface KeyedOperation {
  readonly op: OperationDescriptor;
  readonly key: string;
}

/** Bumped when what a parse keeps changes: a cache file of another version is parsed again. */
const PARSE_VERSION = 3;
/** Bytes of a spec (GitHub's is 13 MB). */
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

/** The worker's job: the spec as a head and its operations as items. */
export async function parseSpecJob(input: SpecInput): Promise<JobResult> {
  const { parsed, fromCache } = await parseSpec(input);
  const keys = parsed.inputSchemaKeys!;
  const head: SpecHead = {
    servers: parsed.servers,
    skipped: parsed.skipped ?? [],
    notices: parsed.notices ?? [],
    fromCache,
  };
  return { head, items: parsed.operations.map((op, i): KeyedOperation => ({ op, key: keys[i]! })) };
}

async function parseSpec(o: SpecInput): Promise<{ parsed: Parsed; fromCache: boolean }> {
  // Bytes, not text: decoding GitHub's 13 MB and hashing the string cost a restart more than the rest of this step.
  const bytes = /^https?:\/\//.test(o.spec)
    ? Buffer.from(await (await fetch(o.spec)).arrayBuffer())
    : readFileSync(o.spec);
  if (bytes.length > SPEC_BYTES_LIMIT)
    throw new Error(`${o.spec} has ${bytes.length} bytes, more than an OpenAPI source may have (${SPEC_BYTES_LIMIT})`);
  const sha = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
  // A header the auth sets is no tool's input: the parse depends on its name, and so does the cache file.
  const hidden = new Set([o.authHeader, "authorization"]);
  const variant =
    o.authHeader === "authorization"
      ? ""
      : `-${new Bun.CryptoHasher("sha256").update(o.authHeader).digest("hex").slice(0, 16)}`;
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
  if (parsed.inputSchemaKeys?.length !== parsed.operations.length) {
    parsed = { ...parsed, inputSchemaKeys: await keysOf(parsed.operations) };
    if (cacheFile) {
      mkdirSync(o.cacheDir!, { recursive: true });
      writeFileSync(cacheFile, JSON.stringify(parsed));
    }
  }
  return { parsed, fromCache };
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

/** `jsonSchemaKey` of each operation's input. */
async function keysOf(operations: readonly OperationDescriptor[]): Promise<string[]> {
  const slicer = new TimeSlicer();
  const keys: string[] = [];
  for (const op of operations) {
    keys.push(jsonSchemaKey(op.inputSchema));
    await slicer.pause();
  }
  return keys;
}

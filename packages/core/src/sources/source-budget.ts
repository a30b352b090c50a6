import { cutText, ELLIPSIS } from "../text/cut.ts";
import { escapeInvisible } from "../text/escape.ts";
import { prepareJsonSchema, SCHEMA_LIMITS, type SchemaLimits } from "./schema-limits.ts";

/**
 * What one tool source (an MCP server, an OpenAPI spec) may bring in: each tool's input schema
 * within `SCHEMA_LIMITS`, and all of them together within `nodes` (GitHub's 1,223 operations have
 * 35,783) and `tools`. A tool past a limit is left out and named with the limit; the source's other
 * tools load.
 */
export interface SourceLimits {
  readonly nodes: number;
  readonly tools: number;
  /** Characters of a tool's name; MCP allows 1-128 (https://modelcontextprotocol.io/specification/2025-06-18/server/tools#tool). */
  readonly nameLength: number;
  readonly schema: SchemaLimits;
}

export const SOURCE_LIMITS: SourceLimits = Object.freeze({
  nodes: 100_000,
  tools: 5_000,
  nameLength: 128,
  schema: SCHEMA_LIMITS,
});

/**
 * An OpenAPI source's limits: a spec is already bounded by its bytes (`SPEC_BYTES_LIMIT`), and
 * Microsoft Graph's v1.0 description has 11,422 operations whose inputs together have about a
 * million nodes (its `$select` / `$expand` enums list every property). Its tools' validators and
 * declarations are built when first needed, not at load, so a source of that size stays usable;
 * the nodes bound still stops `$ref` fan-out from multiplying a small spec into a huge one.
 */
export const OPENAPI_SOURCE_LIMITS: SourceLimits = Object.freeze({
  ...SOURCE_LIMITS,
  nodes: 2_000_000,
  tools: 20_000,
});

/** Characters of a tool's description kept for the declarations and the prompt. */
export const DESCRIPTION_LIMIT = 4_000;

/** A tool a source listed and the gateway left out, and the limit it went past. */
export interface SkippedTool {
  readonly tool: string;
  readonly reason: string;
}

/**
 * Set by the source worker (mcp/listing.ts) on a tool it checked: the per-tool limit it went past,
 * found off the gateway's thread. The SDK's parse drops keys it does not know, so a server cannot set it.
 */
export const REFUSED = "openassistant/refused";

export interface Refusal {
  /** Which check refused it: the name, the input schema, or (the tool still loads, untyped) the output schema. */
  readonly stage: "name" | "schema" | "output";
  readonly reason: string;
}

/** The refusal the source worker attached to `tool`, if any. */
export function refusalOf(tool: object): Refusal | undefined {
  return Object.hasOwn(tool, REFUSED) ? ((tool as Record<string, unknown>)[REFUSED] as Refusal) : undefined;
}

export class SourceBudget {
  readonly skipped: SkippedTool[] = [];
  private nodes = 0;
  private tools = 0;

  constructor(private readonly limits: SourceLimits = SOURCE_LIMITS) {}

  /**
   * Whether the tool may be mounted; when not, why is added to `skipped`. `refusal`: a per-tool
   * limit the source worker found already (reported where this check would have found it).
   */
  admit(tool: string, inputSchema: unknown, refusal?: Refusal): boolean {
    const { limits } = this;
    if (refusal?.stage === "name") return this.skip(tool, refusal.reason);
    if (tool.length > limits.nameLength)
      return this.skip(tool, `its name has ${tool.length} characters (limit ${limits.nameLength})`);
    if (this.tools >= limits.tools) return this.skip(tool, `the source lists more than ${limits.tools} tools`);
    if (this.nodes >= limits.nodes)
      return this.skip(tool, `the source's input schemas together have more than ${limits.nodes} nodes`);
    if (refusal?.stage === "schema") return this.skip(tool, refusal.reason);
    const prepared = prepareJsonSchema(inputSchema, limits.schema);
    if (!prepared.ok) return this.skip(tool, prepared.limit);
    this.nodes += prepared.nodes;
    if (this.nodes > limits.nodes)
      return this.skip(tool, `the source's input schemas together have more than ${limits.nodes} nodes`);
    this.tools++;
    return true;
  }

  /** A reason found before the schema was looked at (a spec operation whose schema could not be read). */
  skip(tool: string, reason: string): false {
    // The name is the source's text: cut, and its invisible characters shown, before any surface prints it.
    this.skipped.push({ tool: escapeInvisible(cutText(tool, 200, { marker: ELLIPSIS })), reason });
    return false;
  }
}

/**
 * Input schemas a hostile or broken tool source might list (an MCP server's `tools/list`, an
 * OpenAPI operation's parameters), each with the limit the gateway must name when it leaves the
 * tool out. Built in code: a 10,000-level schema is easier to make than to store.
 */
export interface HostileSchema {
  /** Used as the tool's name (MCP) or operation id (OpenAPI). */
  readonly name: string;
  /** A tool input schema: `type: "object"` at the top, as MCP requires. */
  readonly schema: Record<string, unknown>;
  /** What the diagnostic says about the limit. */
  readonly limit: RegExp;
}

function nested(levels: number): Record<string, unknown> {
  let node: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < levels; i++) node = { type: "object", properties: { a: node } };
  return node;
}

/** A JS object graph with shared subtrees (what YAML anchors make): tiny in memory, huge once copied. */
export function laughs(levels: number, width: number): Record<string, unknown> {
  let node: unknown = { type: "string", description: "lol" };
  for (let i = 0; i < levels; i++) node = { anyOf: Array.from({ length: width }, () => node) };
  return { type: "object", properties: { a: node } };
}

function refChain(length: number): Record<string, unknown> {
  const $defs: Record<string, unknown> = { d0: { type: "string" } };
  for (let i = 1; i <= length; i++) $defs[`d${i}`] = { $ref: `#/$defs/d${i - 1}` };
  return { type: "object", properties: { a: { $ref: `#/$defs/d${length}` } }, $defs };
}

/** `remote` is a URL a test watches: nothing may ever ask it for the referenced document. */
export function hostileSchemas(remote: string): HostileSchema[] {
  return [
    {
      name: "refCycle",
      schema: {
        type: "object",
        properties: { a: { $ref: "#/$defs/x" } },
        $defs: { x: { $ref: "#/$defs/y" }, y: { $ref: "#/$defs/x" } },
      },
      limit: /has a cycle of \$refs with no schema in between/,
    },
    { name: "refChain", schema: refChain(200), limit: /has a chain of more than 32 \$refs/ },
    {
      name: "refNowhere",
      schema: { type: "object", properties: { a: { $ref: "#/$defs/missing" } } },
      limit: /has a \$ref to nowhere \("#\/\$defs\/missing"/,
    },
    {
      name: "refRemote",
      schema: { type: "object", properties: { a: { $ref: `${remote}/schema.json` } } },
      limit: /has a \$ref to another document \(.*\); references are never fetched/,
    },
    { name: "deep", schema: nested(10_000), limit: /nests deeper than 40 levels/ },
    {
      name: "manyProperties",
      schema: {
        type: "object",
        properties: Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`p${i}`, { type: "string" }])),
      },
      limit: /has 100000 entries in one object \(limit 500\)/,
    },
    {
      name: "hugeEnum",
      schema: { type: "object", properties: { a: { enum: Array.from({ length: 100_000 }, (_, i) => `v${i}`) } } },
      limit: /has an enum of 100000 members \(limit 500\)/,
    },
    {
      name: "wideAnyOf",
      schema: {
        type: "object",
        properties: { a: { anyOf: Array.from({ length: 5_000 }, (_, i) => ({ const: i })) } },
      },
      limit: /has anyOf with 5000 branches \(limit 64\)/,
    },
    // 11,111 objects once written out as JSON (an MCP server must send it whole); in memory, see `laughs`.
    { name: "sharedSubtrees", schema: laughs(4, 10), limit: /has more than 2500 nodes/ },
    {
      name: "giantDescription",
      schema: { type: "object", properties: { a: { type: "string", description: "x".repeat(2_000_000) } } },
      limit: /has a string of 2000000 characters \(limit 16384\)/,
    },
    {
      name: "muchText",
      schema: {
        type: "object",
        properties: Object.fromEntries(
          Array.from({ length: 20 }, (_, i) => [`p${i}`, { type: "string", description: "y".repeat(16_000) }]),
        ),
      },
      limit: /has more than 64000 characters of text/,
    },
    {
      name: "manyPatterns",
      schema: {
        type: "object",
        properties: Object.fromEntries(
          Array.from({ length: 100 }, (_, i) => [`p${i}`, { type: "string", pattern: `^p${i}$` }]),
        ),
      },
      limit: /has more than 64 patterns/,
    },
  ];
}

/** A schema that loads: its pattern backtracks catastrophically on the built-in RegExp. */
export const BACKTRACKING_SCHEMA = {
  type: "object",
  properties: { word: { type: "string", pattern: "^(a+)+$" } },
  required: ["word"],
} as const;

/** 2^60 paths for a backtracking engine (JavaScriptCore gives up after its match limit, ~2 s of CPU here). */
export const BACKTRACKING_INPUT = `${"a".repeat(60)}!`;

/**
 * A pattern whose first branch backtracks catastrophically on `BACKTRACKING_INPUT` and whose second
 * branch matches it. RE2 says "match"; JavaScriptCore's RegExp hits its backtracking limit in the
 * first branch and says "no match": a wrong answer that tells the engines apart without a clock.
 */
export const SECOND_BRANCH_PATTERN = "^(?:(a+)+b|a+!)$";

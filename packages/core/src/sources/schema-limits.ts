import { cutText, ELLIPSIS } from "../text/cut.ts";
import { compileLinear, type LinearRegExp } from "./linear-regex.ts";

/**
 * How much of a JSON Schema written by someone else (an MCP server's tool list, an OpenAPI spec)
 * the gateway takes in for one tool. Everything derived from the schema on the gateway's thread —
 * the zod validator, the declarations, the search text — is bounded by these numbers. The largest
 * operation of GitHub's spec (1,223 operations) stays well inside each of them (see schema-limits.test.ts).
 */
export interface SchemaLimits {
  /** Levels of JSON nesting (objects and arrays). */
  readonly depth: number;
  /** Objects, arrays and values visited; a subtree shared by several parents counts at each use. */
  readonly nodes: number;
  /** Characters of every string and key together. */
  readonly chars: number;
  /** Characters of one string (a description, a pattern, a key). */
  readonly stringLength: number;
  /** Entries of one `properties` / `$defs` / `patternProperties` object. */
  readonly properties: number;
  /** Members of one `enum`. */
  readonly enumMembers: number;
  /** Branches of one `anyOf` / `oneOf` / `allOf`. */
  readonly branches: number;
  /** `$ref`s followed one after another before reaching a schema. */
  readonly refChain: number;
  /** `pattern` and `patternProperties` regular expressions. */
  readonly patterns: number;
}

export const SCHEMA_LIMITS: SchemaLimits = Object.freeze({
  depth: 40,
  nodes: 2_500,
  chars: 64_000,
  stringLength: 16_384,
  properties: 500,
  enumMembers: 500,
  branches: 64,
  refChain: 32,
  patterns: 64,
});

export type PreparedSchema =
  | {
      readonly ok: true;
      /** A copy to build the validator from: each `pattern` replaced by a placeholder key of `patterns`. */
      readonly schema: unknown;
      /** Placeholder → the pattern compiled by RE2 (linear-regex.ts), swapped into the built validator. */
      readonly patterns: ReadonlyMap<string, LinearRegExp>;
      /** What the gateway does not check (patterns RE2 cannot compile), one sentence each. */
      readonly notes: readonly string[];
      /** Nodes visited (what a source's schemas are budgeted by together). */
      readonly nodes: number;
    }
  | { readonly ok: false /** Which limit the schema went past, and where. */; readonly limit: string };

/** Keywords whose value is one schema (an array `items` is a list of them). */
const SCHEMA_VALUED = new Set([
  "additionalProperties",
  "items",
  "not",
  "if",
  "then",
  "else",
  "additionalItems",
  "unevaluatedItems",
  "unevaluatedProperties",
]);
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAPS = new Set(["properties", "$defs", "definitions", "dependentSchemas"]);
/** Keywords whose value is an array of schemas. */
const SCHEMA_LISTS = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);
const BRANCHES = new Set(["anyOf", "oneOf", "allOf"]);

type Kind = "schema" | "data" | "schemaMap" | "schemaList" | "patternMap";

interface Frame {
  readonly value: unknown;
  readonly kind: Kind;
  readonly depth: number;
  readonly parent: Frame | undefined;
  readonly key: string;
  readonly set: (value: unknown) => void;
}

class SchemaLimitError extends Error {}

/**
 * Checks a tool's input schema against `limits` in one iterative walk (a 10,000-level nesting
 * cannot overflow the stack; a shared subtree is counted at every use, as the validator's JSON
 * round trip would copy it) and returns the copy the validator is built from, or the limit it
 * went past. `$ref`s are checked, never fetched: only `#`, `#/$defs/<name>` and
 * `#/definitions/<name>` are followed, each must exist, and a chain of plain `$ref`s must reach a
 * schema within `limits.refChain` steps.
 */
export function prepareJsonSchema(
  schema: unknown,
  limits: SchemaLimits = SCHEMA_LIMITS,
  options: {
    /** False for a part whose `$ref`s point into a document not at hand yet (an OpenAPI spec). */ readonly refs?: boolean;
  } = {},
): PreparedSchema {
  const walk = new Walk(limits);
  try {
    const copy = walk.run(schema);
    if (options.refs !== false) walk.checkRefs(copy);
    return { ok: true, schema: copy, patterns: walk.patterns, notes: walk.notes, nodes: walk.nodes };
  } catch (error) {
    if (error instanceof SchemaLimitError) return { ok: false, limit: error.message };
    throw error;
  }
}

class Walk {
  readonly patterns = new Map<string, LinearRegExp>();
  readonly notes: string[] = [];
  private readonly refs: Array<{ ref: string; frame: Frame }> = [];
  nodes = 0;
  private chars = 0;
  private patternCount = 0;

  constructor(private readonly limits: SchemaLimits) {}

  run(schema: unknown): unknown {
    let root: unknown;
    const stack: Frame[] = [
      { value: schema, kind: "schema", depth: 0, parent: undefined, key: "", set: (v) => (root = v) },
    ];
    while (stack.length > 0) this.visit(stack.pop()!, stack);
    return root;
  }

  private visit(f: Frame, stack: Frame[]): void {
    const { limits } = this;
    if (++this.nodes > limits.nodes) this.fail(`has more than ${limits.nodes} nodes`, f);
    if (f.depth > limits.depth) this.fail(`nests deeper than ${limits.depth} levels`, f);
    const v = f.value;
    if (typeof v === "string") {
      this.countText(v, f);
      f.set(v);
      return;
    }
    if (typeof v !== "object" || v === null) {
      f.set(v);
      return;
    }
    if (Array.isArray(v)) {
      if (v.length > limits.nodes) this.fail(`has an array of ${v.length} items (limit ${limits.nodes} nodes)`, f);
      const out: unknown[] = new Array(v.length);
      f.set(out);
      const kind: Kind = f.kind === "schemaList" ? "schema" : "data";
      for (let i = v.length - 1; i >= 0; i--)
        stack.push({ value: v[i], kind, depth: f.depth + 1, parent: f, key: String(i), set: (x) => (out[i] = x) });
      return;
    }
    const keys = Object.keys(v);
    if ((f.kind === "schemaMap" || f.kind === "patternMap") && keys.length > limits.properties)
      this.fail(`has ${keys.length} entries in one object (limit ${limits.properties})`, f);
    if (keys.length > limits.nodes) this.fail(`has an object of ${keys.length} keys (limit ${limits.nodes} nodes)`, f);
    // Null prototype: a key named `__proto__` stays a key.
    const out: Record<string, unknown> = Object.create(null);
    f.set(out);
    const node = v as Record<string, unknown>;
    for (let i = keys.length - 1; i >= 0; i--) {
      let key = keys[i]!;
      this.countText(key, f);
      const value = node[key];
      let kind: Kind = "data";
      if (f.kind === "schemaMap") kind = "schema";
      else if (f.kind === "patternMap") {
        const placeholder = this.pattern(key, f);
        if (placeholder === undefined) continue;
        key = placeholder;
        kind = "schema";
      } else if (f.kind === "schema") {
        const k = this.schemaKeyword(key, value, node, f);
        if (k === "skip") continue;
        if (k === "pattern") {
          const placeholder = this.pattern(value as string, f);
          if (placeholder !== undefined) out[key] = placeholder;
          continue;
        }
        kind = k;
      }
      const target = key;
      stack.push({ value, kind, depth: f.depth + 1, parent: f, key, set: (x) => (out[target] = x) });
    }
  }

  /** How a keyword's value is walked in a schema object, or what is done with it instead. */
  private schemaKeyword(
    key: string,
    value: unknown,
    node: Record<string, unknown>,
    f: Frame,
  ): Kind | "skip" | "pattern" {
    const { limits } = this;
    if (key === "pattern") {
      if (typeof value === "string") return "pattern";
      // zod would call `new RegExp(value)`: an array's text is a pattern too, and an unchecked one.
      this.notes.push(`"pattern" at ${where(f)} is not a string; it is ignored`);
      return "skip";
    }
    if (key === "$ref" && typeof value === "string") this.refs.push({ ref: value, frame: f });
    if (key === "enum" && Array.isArray(value) && value.length > limits.enumMembers)
      this.fail(`has an enum of ${value.length} members (limit ${limits.enumMembers})`, f);
    if (BRANCHES.has(key) && Array.isArray(value) && value.length > limits.branches)
      this.fail(`has ${key} with ${value.length} branches (limit ${limits.branches})`, f);
    if (key === "additionalProperties" && value === false && node.patternProperties !== undefined) {
      // zod would test every other key against the patterns with the built-in RegExp.
      this.notes.push(
        `"additionalProperties": false next to "patternProperties" at ${where(f)} is not checked here (the server still checks it)`,
      );
      return "skip";
    }
    if ((key === "propertyNames" || key === "contains") && value !== true) {
      // zod checks these inside a closure the RE2 swap cannot reach: its patterns would run backtracking.
      this.notes.push(`"${key}" at ${where(f)} is not checked here (the server still checks it)`);
      return "skip";
    }
    if (key === "patternProperties") return "patternMap";
    if (SCHEMA_MAPS.has(key)) return "schemaMap";
    if (SCHEMA_LISTS.has(key) || (key === "items" && Array.isArray(value))) return "schemaList";
    if (SCHEMA_VALUED.has(key)) return "schema";
    return "data";
  }

  /** A placeholder for a pattern RE2 compiles, or undefined (with a note) for one it cannot. */
  private pattern(source: string, f: Frame): string | undefined {
    if (++this.patternCount > this.limits.patterns) this.fail(`has more than ${this.limits.patterns} patterns`, f);
    this.countText(source, f);
    const compiled = compileLinear(source);
    if ("reason" in compiled) {
      this.notes.push(
        `pattern ${quote(source)} at ${where(f)} is not checked here: the linear-time engine cannot run it (${cut(compiled.reason, 120)}); the server still checks it`,
      );
      return undefined;
    }
    // A NUL-fenced placeholder: a validator that somehow kept it would refuse ordinary input, not pass it.
    const placeholder = `\u0000oa-pattern-${this.patterns.size}\u0000`;
    this.patterns.set(placeholder, compiled.regex);
    return placeholder;
  }

  private countText(text: string, f: Frame): void {
    if (text.length > this.limits.stringLength)
      this.fail(`has a string of ${text.length} characters (limit ${this.limits.stringLength})`, f);
    this.chars += text.length;
    if (this.chars > this.limits.chars) this.fail(`has more than ${this.limits.chars} characters of text`, f);
  }

  checkRefs(root: unknown): void {
    const settled = new Set<string>();
    for (const { ref, frame } of this.refs) {
      if (settled.has(ref)) continue;
      const seen = new Set<string>([ref]);
      let target = this.resolve(ref, root, frame);
      for (let steps = 1; isPlainRef(target); steps++) {
        const next = (target as { $ref: string }).$ref;
        if (seen.has(next)) this.fail(`has a cycle of $refs with no schema in between (${quote(ref)})`, frame);
        if (steps >= this.limits.refChain)
          this.fail(`has a chain of more than ${this.limits.refChain} $refs (from ${quote(ref)})`, frame);
        seen.add(next);
        target = this.resolve(next, root, frame);
      }
      for (const r of seen) settled.add(r);
    }
  }

  private resolve(ref: string, root: unknown, f: Frame): unknown {
    if (!ref.startsWith("#"))
      this.fail(`has a $ref to another document (${quote(ref)}); references are never fetched`, f);
    if (ref === "#") return root;
    const m = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
    const defs = m ? (root as Record<string, unknown> | null)?.[m[1]!] : undefined;
    const name = (m?.[2] ?? "").replace(/~1/g, "/").replace(/~0/g, "~");
    if (!m || typeof defs !== "object" || defs === null || !Object.hasOwn(defs, name))
      this.fail(
        `has a $ref to nowhere (${quote(ref)}; only #, #/$defs/<name> and #/definitions/<name> are followed)`,
        f,
      );
    return (defs as Record<string, unknown>)[name];
  }

  private fail(what: string, f: Frame): never {
    throw new SchemaLimitError(`its input schema ${what} at ${where(f)}`);
  }
}

function isPlainRef(node: unknown): boolean {
  return typeof node === "object" && node !== null && typeof (node as { $ref?: unknown }).$ref === "string";
}

/** A JSON pointer to the frame, cut short for a message. */
function where(f: Frame): string {
  const keys: string[] = [];
  for (let at: Frame | undefined = f; at?.parent; at = at.parent) {
    keys.push(at.key.replace(/~/g, "~0").replace(/\//g, "~1"));
    if (keys.length > 12) {
      keys.push("…");
      break;
    }
  }
  return cut(`#/${keys.reverse().join("/")}`, 160);
}

function quote(text: string): string {
  return JSON.stringify(cut(text, 80));
}

function cut(text: string, max: number): string {
  return cutText(text, max, { marker: ELLIPSIS });
}

/**
 * A cache on disk of rendered tool input types, so a gateway that starts again with the same tools
 * does not import TypeScript (and zod-to-ts) on its main thread just to print them.
 *
 * The key is a fingerprint of everything the renderer reads from a schema: every node's `_zod.def`
 * (walked recursively, lazy schemas resolved, shared and recursive nodes numbered in the order
 * they are met) and every node's `.describe()` text. A tool built from a JSON Schema (MCP,
 * OpenAPI; sources/json-schema-tool.ts) is keyed `json:<sha-256 of the schema's JSON>` instead,
 * so its zod validator is not built to look it up. Anything else that could change the output
 * (the versions of zod, zod-to-ts and TypeScript, the renderer's own source and the JSON Schema
 * conversion's) is the cache's salt: a file written under another salt is ignored. An unreadable
 * or malformed file is ignored and rewritten, never trusted in part.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { replaceFile } from "../files/whole-writes.ts";
import { dirname, join } from "node:path";
import { globalRegistry } from "zod";

/** What the renderer produced for one input schema. */
export interface RenderedInput {
  /** The input type, e.g. `{\n  id: string;\n}`. */
  readonly type: string;
  /** Helper type aliases (recursive schemas), with placeholder names. */
  readonly aux: readonly string[];
  /** Schemas that could not be expressed exactly (without the tool path). */
  readonly warnings: readonly string[];
  /** The result type, when the tool declares its output's schema (an MCP `outputSchema`); its helper aliases are in `aux`. */
  readonly output?: string;
}

export interface DeclarationCache {
  get(fingerprint: string): RenderedInput | undefined;
  set(fingerprint: string, rendered: RenderedInput): void;
  /** Writes the file if anything was added (atomically: a reader never sees half a file). */
  flush(): void;
  /** For tests and benchmarks: lookups answered from the cache and renders it did not have. */
  stats(): { readonly hits: number; readonly misses: number };
}

/** Entries kept in the file (most recently used first); a workspace has a few hundred tools. */
const MAX_ENTRIES = 5_000;

/** Opens (or starts) the cache file at `file`. Reading it is deferred to the first lookup. */
export function openDeclarationCache(file: string): DeclarationCache {
  let entries: Map<string, RenderedInput> | undefined;
  let dirty = false;
  let hits = 0;
  let misses = 0;
  const load = (): Map<string, RenderedInput> => {
    if (entries) return entries;
    entries = new Map();
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, "utf8"));
    } catch {
      return entries; // missing or unreadable: start empty, rewrite on flush
    }
    if (!isRecord(parsed) || parsed.salt !== cacheSalt() || !isRecord(parsed.entries)) return entries;
    for (const [key, value] of Object.entries(parsed.entries)) if (isRendered(value)) entries.set(key, value);
    return entries;
  };
  return {
    get(fingerprint) {
      const hit = load().get(fingerprint);
      if (hit) hits++;
      else misses++;
      return hit;
    },
    set(fingerprint, rendered) {
      const map = load();
      map.delete(fingerprint);
      map.set(fingerprint, rendered);
      dirty = true;
    },
    flush() {
      if (!dirty || !entries) return;
      dirty = false;
      const kept = [...entries].slice(-MAX_ENTRIES);
      const text = JSON.stringify({ salt: cacheSalt(), entries: Object.fromEntries(kept) });
      try {
        mkdirSync(dirname(file), { recursive: true });
        replaceFile(file, text);
      } catch {
        // A read-only data dir only costs the next start the render; it never fails the caller.
      }
    },
    stats: () => ({ hits, misses }),
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");
function isRendered(v: unknown): v is RenderedInput {
  return (
    isRecord(v) &&
    typeof v.type === "string" &&
    isStringArray(v.aux) &&
    isStringArray(v.warnings) &&
    (v.output === undefined || typeof v.output === "string")
  );
}

let salt: string | undefined;
/**
 * Versions of the packages that shape the output, and the source files of the renderer and of the
 * JSON Schema → zod conversion: a change to any of them makes every cached entry stale.
 */
export function cacheSalt(): string {
  if (salt !== undefined) return salt;
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update("declarations-cache v1\n");
  for (const pkg of ["zod", "zod-to-ts", "typescript"]) hasher.update(`${pkg}@${packageVersion(pkg)}\n`);
  for (const file of ["declarations-render.ts", "print-type.ts", "declarations-text.ts", "../sources/input-schema.ts"])
    hasher.update(readFileSync(join(import.meta.dir, file)));
  salt = hasher.digest("hex");
  return salt;
}

/** The installed version of a package: its package.json, found upward from its resolved entry. */
function packageVersion(name: string): string {
  let dir = dirname(Bun.resolveSync(name, import.meta.dir));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
      if (pkg.name === name && typeof pkg.version === "string") return pkg.version;
    } catch {
      // no package.json at this level
    }
    const up = dirname(dir);
    if (up === dir) return "unknown";
    dir = up;
  }
}

/** Def keys the renderer never reads whose values can change on every access (a default of `new Date()`). */
const SKIPPED_KEYS = new Set(["defaultValue", "catchValue"]);

/**
 * A stable text for a schema: two schemas with the same fingerprint render to the same type. It
 * is the canonical walk of their defs, so it is as long as the schema; callers hash it.
 * Throws if a getter in the schema throws (the caller then renders without the cache).
 */
export function schemaFingerprint(schema: unknown): string {
  const seen = new Map<object, number>();
  const out: string[] = [];
  const walk = (value: unknown): void => {
    switch (typeof value) {
      case "string":
        out.push(JSON.stringify(value));
        return;
      case "number":
      case "boolean":
        out.push(String(value));
        return;
      case "bigint":
        out.push(`${value}n`);
        return;
      case "undefined":
        out.push("u");
        return;
      case "symbol":
        out.push(`sym(${JSON.stringify(value.description ?? "")})`);
        return;
      case "function":
        out.push(`fn(${JSON.stringify(Function.prototype.toString.call(value))})`);
        return;
    }
    if (value === null) return void out.push("null");
    const object = value as Record<string, unknown>;
    const ref = seen.get(object);
    if (ref !== undefined) return void out.push(`@${ref}`);
    seen.set(object, seen.size);
    const zod = (object as { _zod?: { def?: Record<string, unknown> } })._zod;
    if (zod && typeof zod === "object" && zod.def && typeof zod.def === "object") {
      const def = zod.def;
      const description = globalRegistry.get(object as never)?.description;
      out.push(`Z(${description === undefined ? "" : JSON.stringify(description)}`);
      if (def.type === "lazy" && typeof def.getter === "function") {
        out.push("lazy:");
        walk((def.getter as () => unknown)());
      } else walkFields(def);
      out.push(")");
      return;
    }
    if (Array.isArray(object)) {
      out.push("[");
      for (const item of object) {
        walk(item);
        out.push(",");
      }
      out.push("]");
      return;
    }
    const proto = Object.getPrototypeOf(object);
    if (proto !== Object.prototype && proto !== null) {
      // RegExp, Date, Map, Set, class instances: their type and text.
      const name = typeof proto?.constructor?.name === "string" ? proto.constructor.name : "?";
      out.push(`${name}(${JSON.stringify(String(object))}`);
      if (object instanceof Map || object instanceof Set) for (const item of object) walk(item);
      out.push(")");
      return;
    }
    walkFields(object);
  };
  const walkFields = (object: Record<string, unknown>): void => {
    out.push("{");
    for (const key in object) {
      if (SKIPPED_KEYS.has(key)) continue;
      out.push(`${JSON.stringify(key)}:`);
      walk(object[key]);
      out.push(",");
    }
    out.push("}");
  };
  walk(schema);
  return out.join("");
}

/** The cache key of one input schema. */
export function fingerprintKey(schema: unknown): string {
  return new Bun.CryptoHasher("sha256").update(schemaFingerprint(schema)).digest("hex");
}

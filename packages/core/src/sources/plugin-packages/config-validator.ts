import { mkdirSync, readFileSync } from "node:fs";
import { replaceFile } from "../../files/whole-writes.ts";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { ValidateFunction } from "ajv";

/**
 * Compiles a plugin's `configSchema` with Ajv. Importing Ajv costs ~25 ms of every CLI command and
 * gateway start that reads such a plugin, so with a cache the compiled validator is also kept as
 * Ajv's standalone code (`<dir>/config-validators/<sha256 of Ajv's version, options and schema>.cjs`)
 * and a later process loads that file instead of importing Ajv. The file is derived data: an
 * unreadable or broken one is compiled again.
 */
export interface ValidatorCache {
  readonly dir: string;
  /** False in list mode (`plugins list` writes nothing): read a cached validator, never write one. */
  readonly write: boolean;
}

// validateSchema: false skips compiling the draft-07 meta-schema (~100 ms of CPU per Ajv instance);
// compile() still rejects malformed keywords ("type must be JSONType", "properties value must be object").
const AJV_OPTIONS = { allErrors: true, useDefaults: true, strict: false, validateSchema: false } as const;
const requireHere = createRequire(import.meta.url);

type AjvClass = typeof import("ajv").default;
let AjvCtor: AjvClass | undefined;

export function compileConfigSchema(schema: object, cache?: ValidatorCache): ValidateFunction {
  const file = cache ? join(cache.dir, "config-validators", `${cacheKey(schema)}.cjs`) : undefined;
  const cached = file ? loadCached(file) : undefined;
  if (cached) return cached;
  AjvCtor ??= (requireHere("ajv") as { default: AjvClass }).default;
  // A fresh Ajv per schema: a shared instance remembers every "$id", so a schema with an "$id"
  // would fail as "already exists" on the next reload (or in a second plugin).
  const ajv = new AjvCtor({ ...AJV_OPTIONS, code: { source: true } });
  const validate = ajv.compile(schema);
  if (file && cache?.write) saveCached(file, ajv, validate);
  return validate;
}

function cacheKey(schema: object): string {
  const { version } = requireHere("ajv/package.json") as { version: string };
  const text = `${version}\n${JSON.stringify(AJV_OPTIONS)}\n${JSON.stringify(schema)}`;
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}

function loadCached(file: string): ValidateFunction | undefined {
  let code: string;
  try {
    code = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  try {
    const module = { exports: {} as unknown };
    new Function("module", "exports", "require", code)(module, module.exports, requireHere);
    return typeof module.exports === "function" ? (module.exports as ValidateFunction) : undefined;
  } catch {
    return undefined;
  }
}

function saveCached(file: string, ajv: InstanceType<AjvClass>, validate: ValidateFunction): void {
  try {
    const standaloneCode = (requireHere("ajv/dist/standalone") as { default: (a: unknown, v: unknown) => string })
      .default;
    mkdirSync(join(file, ".."), { recursive: true });
    // Renamed into place, so a process reading it never sees half a file.
    replaceFile(file, standaloneCode(ajv, validate));
  } catch {
    // a read-only or full disk: the next process compiles again
  }
}

import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { ValidateFunction } from "ajv";
import { normalizeId, isValidId } from "../../tools/plugin-id.ts";
import { compileConfigSchema, type ValidatorCache } from "./config-validator.ts";

export interface PluginPackage {
  readonly dir: string;
  readonly id: string;
  readonly packageName?: string;
  readonly version?: string;
  readonly entry: string;
  readonly name?: string;
  readonly description?: string;
  readonly validateConfig?: ValidateFunction;
  /** The manifest's configSchema as written (its `writeOnly: true` fields are secrets). */
  readonly configSchema?: object;
  readonly manifestFile?: string;
}

export class PluginManifestError extends Error {
  override name = "PluginManifestError";
  constructor(
    message: string,
    readonly file: string,
    readonly hint: string,
    /** Best-effort id for the diagnostic. */
    readonly id: string,
  ) {
    super(message);
  }
}

const ID_PATTERN = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The manifest's own shape: `{ id?: identifier, name?: string, description?: string, configSchema?: object }`. */
function manifestProblem(m: unknown): string | undefined {
  if (typeof m !== "object" || m === null || Array.isArray(m)) return "(root) must be object";
  const o = m as Record<string, unknown>;
  if (o.id !== undefined && (typeof o.id !== "string" || !ID_PATTERN.test(o.id)))
    return typeof o.id === "string" ? `/id must match pattern "${ID_PATTERN.source}"` : "/id must be string";
  for (const k of ["name", "description"] as const)
    if (o[k] !== undefined && typeof o[k] !== "string") return `/${k} must be string`;
  if (
    o.configSchema !== undefined &&
    (typeof o.configSchema !== "object" || o.configSchema === null || Array.isArray(o.configSchema))
  )
    return "/configSchema must be object";
  return undefined;
}

/**
 * Reads a plugin directory's package.json (`"openassistant": { "entry", "id"? }`) and optional
 * `openassistant.json` (id, name, description, configSchema). Validates the manifest and compiles
 * its configSchema without running any plugin code. Throws PluginManifestError.
 */
export function readPluginPackage(dirIn: string, options: { validatorCache?: ValidatorCache } = {}): PluginPackage {
  const dir = resolve(dirIn);
  const pkgFile = join(dir, "package.json");
  const fallbackId = normalizeId(basename(dir));
  if (!existsSync(pkgFile))
    throw new PluginManifestError(
      "no package.json in plugin directory",
      pkgFile,
      'Add a package.json with "openassistant": { "entry": "./index.ts" }.',
      fallbackId,
    );
  const pkgValue = readJson(pkgFile, fallbackId);
  if (typeof pkgValue !== "object" || pkgValue === null || Array.isArray(pkgValue))
    throw new PluginManifestError(
      `package.json must contain a JSON object, not ${describeJson(pkgValue)}`,
      pkgFile,
      'Write { "name": "...", "type": "module", "openassistant": { "entry": "./index.ts" } }.',
      fallbackId,
    );
  const pkg = pkgValue as Record<string, unknown>;
  const packageName = typeof pkg.name === "string" ? pkg.name : undefined;
  const oa = pkg.openassistant;
  const baseId = packageName ? normalizeId(packageName) : fallbackId;
  if (typeof oa !== "object" || oa === null || Array.isArray(oa))
    throw new PluginManifestError(
      'package.json has no "openassistant" object, so this is not an OpenAssistant plugin',
      pkgFile,
      'Add "openassistant": { "entry": "./index.ts" } to package.json.',
      baseId,
    );
  const oaObj = oa as { entry?: unknown; id?: unknown };
  if (oaObj.entry !== undefined && typeof oaObj.entry !== "string")
    throw new PluginManifestError(
      '"openassistant.entry" must be a string path',
      pkgFile,
      'Write "openassistant": { "entry": "./index.ts" }.',
      baseId,
    );

  let id = typeof oaObj.id === "string" ? oaObj.id : baseId;
  let name: string | undefined;
  let description: string | undefined;
  let validateConfig: ValidateFunction | undefined;
  let configSchema: object | undefined;
  const manifestFile = join(dir, "openassistant.json");
  const hasManifest = existsSync(manifestFile);
  if (hasManifest) {
    const manifest = readJson(manifestFile, id);
    const problem = manifestProblem(manifest);
    if (problem) {
      throw new PluginManifestError(
        `openassistant.json is invalid: ${problem}`,
        manifestFile,
        'Expected { "id"?: identifier, "name"?: string, "description"?: string, "configSchema"?: JSON Schema object }.',
        id,
      );
    }
    const m = manifest as { id?: string; name?: string; description?: string; configSchema?: object };
    if (m.id) id = m.id;
    name = m.name;
    description = m.description;
    if (m.configSchema) {
      configSchema = m.configSchema;
      try {
        validateConfig = compileConfigSchema(m.configSchema, options.validatorCache);
      } catch (err) {
        const message = (err as Error).message;
        const remote = /can't resolve reference/.test(message);
        throw new PluginManifestError(
          `configSchema in openassistant.json is not a valid JSON Schema: ${message}`,
          manifestFile,
          remote
            ? 'Referenced schemas are never fetched: inline the schema in configSchema, or point "$ref" at "#/definitions/..." inside it.'
            : "Fix the configSchema (JSON Schema draft-07).",
          id,
        );
      }
    }
  }
  if (!isValidId(id))
    throw new PluginManifestError(
      `plugin id "${id}" is not a valid identifier`,
      hasManifest ? manifestFile : pkgFile,
      'Set "id" in openassistant.json to letters, digits and _ only.',
      normalizeId(id),
    );

  const entryRel =
    (oaObj.entry as string | undefined) ??
    (typeof pkg.main === "string" ? pkg.main : undefined) ??
    firstExisting(dir, ["index.ts", "index.js", "src/index.ts", "src/index.js"]);
  if (entryRel === "")
    throw new PluginManifestError(
      '"openassistant.entry" is empty',
      pkgFile,
      'Set "openassistant": { "entry": "./index.ts" } in package.json.',
      id,
    );
  if (!entryRel)
    throw new PluginManifestError(
      "no entry file",
      pkgFile,
      'Set "openassistant": { "entry": "./index.ts" } in package.json.',
      id,
    );
  const entry = resolve(dir, entryRel);
  const rel = relative(dir, entry);
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel))
    throw new PluginManifestError(
      `entry "${entryRel}" is outside the plugin directory (${entry})`,
      pkgFile,
      `Point "openassistant.entry" (or "main") at a file inside ${dir}, e.g. "./index.ts"; files outside it are not watched or reloaded with the plugin.`,
      id,
    );
  if (!existsSync(entry))
    throw new PluginManifestError(
      `entry file ${entryRel} does not exist`,
      pkgFile,
      `Create ${entry} or fix "openassistant.entry".`,
      id,
    );
  if (!isFile(entry))
    throw new PluginManifestError(
      `entry ${entryRel} is a directory, not a file`,
      pkgFile,
      `Point "openassistant.entry" at a file, e.g. "${entryRel.replace(/\/+$/, "")}/index.ts".`,
      id,
    );
  return {
    dir,
    id,
    packageName,
    version: typeof pkg.version === "string" ? pkg.version : undefined,
    entry,
    name,
    description,
    validateConfig,
    ...(configSchema ? { configSchema } : {}),
    manifestFile: hasManifest ? manifestFile : undefined,
  };
}

/** Validates (and fills defaults into a copy of) a plugin's config. Returns the config or an error message. */
export function validatePluginConfig(
  plugin: PluginPackage,
  raw: Record<string, unknown> | undefined,
): { ok: true; config: Record<string, unknown> } | { ok: false; message: string; path?: Array<string | number> } {
  const { enabled: _enabled, critical: _critical, hookTimeoutMs: _hookTimeoutMs, ...rest } = raw ?? {};
  const config = structuredClone(rest);
  if (!plugin.validateConfig) return { ok: true, config };
  if (plugin.validateConfig(config)) return { ok: true, config };
  const msgs = (plugin.validateConfig.errors ?? []).map((e) => {
    const where = `config.${plugin.id}${e.instancePath.replace(/\//g, ".")}`;
    if (e.keyword === "additionalProperties")
      return `${where}: unknown key "${(e.params as { additionalProperty: string }).additionalProperty}"`;
    if (e.keyword === "required")
      return `${where}: missing required key "${(e.params as { missingProperty: string }).missingProperty}"`;
    return `${where}: ${e.message}`;
  });
  // Where the first problem is written in the config file (the key itself for an unknown key).
  const first = plugin.validateConfig.errors?.[0];
  const segs = first
    ? first.instancePath
        .split("/")
        .slice(1)
        .map((x) => x.replace(/~1/g, "/").replace(/~0/g, "~"))
    : [];
  if (first?.keyword === "additionalProperties")
    segs.push((first.params as { additionalProperty: string }).additionalProperty);
  return { ok: false, message: msgs.join("; "), path: ["config", plugin.id, ...segs] };
}

function readJson(file: string, id: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new PluginManifestError(
      `cannot parse ${basename(file)}: ${(err as Error).message}`,
      file,
      "Fix the JSON syntax.",
      id,
    );
  }
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function describeJson(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "an array" : `a ${typeof v}`;
}

function firstExisting(dir: string, names: string[]): string | undefined {
  return names.find((n) => existsSync(join(dir, n)));
}

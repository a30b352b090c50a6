import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { z } from "zod";
import type { Diagnostic } from "./diagnostic.ts";
import { ConfigError } from "./errors.ts";
import { interpolateEnv, type UnsetVar } from "./interpolate.ts";
import { duplicateKeys, parseJsonc } from "./jsonc.ts";
import { deepMerge } from "./merge.ts";
import { findProjectRoot, globalConfigDir, workspaceDir } from "./paths.ts";
import { formatPath, positionOfPath } from "./positions.ts";
import { configSchema, type ConfigSchema, type OpenAssistantConfig } from "./schema.ts";
import { findLiteralSecrets } from "./secrets.ts";

export interface LoadConfigOptions {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Defaults to `env.HOME`, then the OS home directory. */
  homeDir?: string;
  /** Skip the walk up from cwd. */
  projectRoot?: string;
  /**
   * "report" (read-only commands: receipts, doctor, plugins list): an unset `${VAR}` becomes "" and is
   * listed in `unset` (a warning, or an error on the plugin whose config uses it). Default "error": throw.
   */
  unsetVars?: "error" | "report";
  /** The schema each file and the merged config must pass (default: core's; the gateway adds its sections). */
  schema?: ConfigSchema;
}

export interface LoadedConfig<C extends OpenAssistantConfig = OpenAssistantConfig> {
  readonly config: C;
  /** The schema it was checked with (a reload checks the files again with it). */
  readonly schema: ConfigSchema;
  /** Config files used, lowest priority first (global, project, OPENASSISTANT_CONFIG). */
  readonly sources: readonly string[];
  readonly projectRoot: string;
  readonly globalDir: string;
  readonly warnings: readonly Diagnostic[];
  /** Every value substituted from `${VAR}`: treated as secrets (redacted from logs, receipts, prompts). */
  readonly secrets: readonly string[];
  /** With `unsetVars: "report"`: the `${VAR}`s that were not set. */
  readonly unset?: readonly UnsetVar[];
}

/**
 * Resolves and loads the config: global dir < `<project>/.openassistant/config.json(c)` <
 * `OPENASSISTANT_CONFIG`, deep-merged in that order (objects merge, arrays replace). Each file is
 * parsed as JSONC, interpolated (`${VAR}`) and validated on its own, so every error points at a
 * position in the file that caused it. Throws ConfigError.
 */
export async function loadConfig<C extends OpenAssistantConfig = OpenAssistantConfig>(
  opts: LoadConfigOptions & { schema?: ConfigSchema<C> },
): Promise<LoadedConfig<C>> {
  const schema = (opts.schema ?? configSchema) as ConfigSchema<C>;
  const projectRoot = opts.projectRoot ? resolve(opts.projectRoot) : findProjectRoot(opts.cwd, opts.homeDir);
  const globalDir = globalConfigDir(opts.env, opts.homeDir);
  const warnings: Diagnostic[] = [];
  const files: string[] = [];
  const pick = (dir: string) => {
    const jsonc = join(dir, "config.jsonc");
    const json = join(dir, "config.json");
    if (existsSync(jsonc) && existsSync(json))
      warnings.push({
        level: "warning",
        id: "config",
        source: json,
        message: `both config.jsonc and config.json exist in ${dir}; config.json is ignored`,
        hint: "Merge them into config.jsonc and delete config.json.",
      });
    if (existsSync(jsonc)) files.push(jsonc);
    else if (existsSync(json)) files.push(json);
  };
  pick(globalDir);
  if (resolve(workspaceDir(projectRoot)) !== resolve(globalDir)) pick(workspaceDir(projectRoot));
  const explicit = opts.env.OPENASSISTANT_CONFIG;
  if (explicit) {
    const file = resolve(opts.cwd, explicit);
    if (!existsSync(file))
      throw new ConfigError(
        file,
        1,
        1,
        "(file)",
        "OPENASSISTANT_CONFIG points at a file that does not exist",
        "Fix the path in OPENASSISTANT_CONFIG or unset it.",
      );
    if (!files.includes(file)) files.push(file);
  }

  let merged: unknown = {};
  const secrets: string[] = [];
  const unset: UnsetVar[] | undefined = opts.unsetVars === "report" ? [] : undefined;
  for (const file of files) {
    const layer = readLayer(file, opts.env, schema, secrets, unset);
    warnings.push(...layer.warnings);
    merged = deepMerge(merged, layer.value);
  }
  const result = schema.safeParse(merged);
  if (!result.success) {
    // Each layer was valid alone, so this cannot happen for schema reasons; report against the last file.
    const issue = result.error.issues[0]!;
    throw new ConfigError(
      files.at(-1) ?? "(defaults)",
      1,
      1,
      formatPath(issue.path),
      issue.message,
      "Check the merged config.",
    );
  }
  for (const u of unset ?? [])
    if (u.path[0] !== "config")
      warnings.push({
        level: "warning",
        id: "config",
        source: u.file,
        line: u.line,
        column: u.column,
        message: `${formatPath([...u.path])} uses \${${u.name}}, which is not set`,
        hint: `Set ${u.name} in the environment before \`openassistant start\` (which fails without it); this command does not need it.`,
      });
  return {
    config: result.data,
    schema,
    sources: files,
    projectRoot,
    globalDir,
    warnings,
    secrets: [...new Set(secrets)],
    ...(unset ? { unset } : {}),
  };
}

function readLayer(
  file: string,
  env: LoadConfigOptions["env"],
  schema: ConfigSchema,
  substituted: string[],
  unset?: UnsetVar[],
): { value: unknown; warnings: Diagnostic[] } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const hint =
      code === "EISDIR"
        ? "It is a directory: remove it or replace it with a config file."
        : code === "ENOENT"
          ? "The file vanished while loading; save it again."
          : "Check the file permissions.";
    throw new ConfigError(file, 1, 1, "(file)", `cannot read config: ${(e as Error).message}`, hint);
  }
  const text = decodeUtf8(bytes, file);
  const parsed = parseJsonc(text, file);
  const where = { file, text, tree: parsed.tree, substituted, ...(unset ? { unset } : {}) };
  if (typeof parsed.value !== "object" || parsed.value === null || Array.isArray(parsed.value))
    throw new ConfigError(
      file,
      1,
      1,
      "(root)",
      "the config must be a JSON object",
      'Wrap the settings in { ... }, e.g. { "plugins": [] }.',
    );
  const warnings = findLiteralSecrets(parsed.value, where);
  for (const d of duplicateKeys(parsed))
    warnings.push({
      level: "warning",
      id: "config",
      source: file,
      line: d.line,
      column: d.column,
      message: `${d.path} is set more than once in this file; only the last one counts`,
      hint: "Merge the two entries into one and delete the other.",
    });
  const value = interpolateEnv(parsed.value, env, where);
  const check = schema.safeParse(value);
  if (!check.success) {
    // Report the problem that comes first in the file, and how many more there are.
    const errors = check.error.issues.map((i) => issueToError(i, where, schema));
    errors.sort((a, b) => a.line - b.line || a.column - b.column);
    const first = errors[0]!;
    if (errors.length === 1) throw first;
    throw new ConfigError(
      first.file,
      first.line,
      first.column,
      first.keyPath,
      first.problem,
      `${first.hint} (${errors.length - 1} more problem${errors.length > 2 ? "s" : ""} in this file after this one.)`,
      errors.slice(1),
    );
  }
  return { value, warnings };
}

/** Config files must be UTF-8; UTF-16 (Windows "Unicode") or binary content gets a clear error instead of "InvalidSymbol". */
function decodeUtf8(bytes: Buffer, file: string): string {
  const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
  let text: string | undefined;
  if (!utf16) {
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      text = undefined;
    }
  }
  const nul = text?.indexOf("\u0000") ?? -1;
  if (text !== undefined && nul < 0) return text;
  throw new ConfigError(
    file,
    1,
    1,
    "(file)",
    utf16 || nul >= 0
      ? "the file is not UTF-8 text (it looks like UTF-16 or binary)"
      : "the file is not valid UTF-8 text",
    'Save it as UTF-8 (in most editors: "Save with encoding" → UTF-8).',
  );
}

function issueToError(
  issue: z.core.$ZodIssue,
  where: { file: string; text: string; tree: ReturnType<typeof parseJsonc>["tree"] },
  schema: ConfigSchema,
): ConfigError {
  const path = issue.path.filter((p): p is string | number => typeof p !== "symbol");
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0]!;
    const full = [...path, key];
    const { line, column } = positionOfPath(where.text, where.tree, full);
    const known = knownKeys(schema, path);
    return new ConfigError(
      where.file,
      line,
      column,
      formatPath(full),
      `unknown key "${key}"`,
      `Remove it or fix the spelling${known.length ? `; allowed keys here: ${known.join(", ")}` : ""}.`,
    );
  }
  const { line, column } = positionOfPath(where.text, where.tree, path);
  return new ConfigError(where.file, line, column, formatPath(path), issue.message, hintFor(issue));
}

function hintFor(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return `Use a ${issue.expected} here.`;
    case "invalid_value":
      return `Use one of: ${issue.values.map((v) => JSON.stringify(v)).join(", ")}.`;
    case "too_small":
    case "too_big":
      return "Change the value to fit the allowed range.";
    default:
      return "Fix the value; see docs/plugins.md for the config reference.";
  }
}

/** Keys allowed in the object schema at `path` (for "unknown key" hints). */
function knownKeys(root: ConfigSchema, path: ReadonlyArray<string | number>): string[] {
  let schema: unknown = root;
  for (const seg of [undefined, ...path]) {
    schema = unwrap(schema);
    if (seg === undefined) continue;
    const def = (
      schema as {
        _zod?: { def?: { type?: string; shape?: Record<string, unknown>; valueType?: unknown; element?: unknown } };
      }
    )._zod?.def;
    if (def?.type === "object") schema = def.shape?.[String(seg)];
    else if (def?.type === "record") schema = def.valueType;
    else if (def?.type === "array") schema = def.element;
    else return [];
  }
  const def = (unwrap(schema) as { _zod?: { def?: { type?: string; shape?: Record<string, unknown> } } })._zod?.def;
  return def?.type === "object" && def.shape ? Object.keys(def.shape) : [];
}

function unwrap(schema: unknown): unknown {
  let s = schema as { _zod?: { def?: { type?: string; innerType?: unknown } } } | undefined;
  while (s?._zod?.def && ["default", "prefault", "optional", "nullable"].includes(s._zod.def.type ?? ""))
    s = s._zod.def.innerType as typeof s;
  return s;
}

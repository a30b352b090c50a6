import type { Node } from "jsonc-parser";
import { ConfigError } from "./errors.ts";
import { formatPath, positionOfPath } from "./positions.ts";

/** A `${VAR}` whose variable is not set (collected instead of thrown in read-only commands). */
export interface UnsetVar {
  readonly name: string;
  readonly path: ReadonlyArray<string | number>;
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

const TOKEN = /\$\$\{|\$\{([^}]*)\}?/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Replaces `${VAR}` in string values (never in keys) with `env.VAR`. No nesting, no defaults, no shell:
 * the substituted text is not scanned again. `$${` writes a literal `${`. Substituted values are
 * collected in `where.substituted`: `${VAR}` is how secrets enter the config, so they are redacted. A missing variable or a
 * malformed reference throws a ConfigError naming the variable, the key path and the file position.
 */
export function interpolateEnv(
  value: unknown,
  env: Readonly<Record<string, string | undefined>>,
  where: { file: string; text: string; tree: Node | undefined; substituted?: string[]; unset?: UnsetVar[] },
  path: Array<string | number> = [],
): unknown {
  if (typeof value === "string") {
    if (!value.includes("$")) return value;
    return value.replace(TOKEN, (match, name: string | undefined) => {
      if (match === "$${") return "${";
      const fail = (problem: string, hint: string): never => {
        const { line, column } = positionOfPath(where.text, where.tree, path);
        throw new ConfigError(where.file, line, column, formatPath(path), problem, hint);
      };
      if (!match.endsWith("}")) fail(`unterminated "\${" in value`, 'Write "${NAME}", or "$${" for a literal "${".');
      if (!NAME.test(name ?? ""))
        fail(
          `"\${${name}}" is not a variable reference`,
          "Use ${NAME} with letters, digits and _ only; nesting and defaults are not supported.",
        );
      const v = env[name!];
      if (v === undefined && where.unset) {
        // Read-only commands: record it (the plugin needing it fails alone) and substitute nothing.
        where.unset.push({
          name: name!,
          path: [...path],
          file: where.file,
          ...positionOfPath(where.text, where.tree, path),
        });
        return "";
      }
      if (v === undefined)
        fail(
          `environment variable ${name} is not set`,
          `Set ${name} in the environment before starting (Bun also reads .env from the directory you start in), or remove the reference.`,
        );
      where.substituted?.push(v!);
      return v!;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolateEnv(v, env, where, [...path, i]));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = interpolateEnv(v, env, where, [...path, k]);
    return out;
  }
  return value;
}

import type { ArgsDef } from "citty";
import { ownValue } from "@openassistant/core/tools";

export class CliError extends Error {
  override name = "CliError";
}

/** citty accepts any flag; our CLI contract is that unknown flags are errors. */
export function rejectUnknownFlags(rawArgs: readonly string[], argsDef: ArgsDef): void {
  const known = new Set<string>(["help", "h"]);
  for (const [name, def] of Object.entries(argsDef)) {
    known.add(name);
    const alias = (def as { alias?: string | string[] }).alias;
    for (const a of [alias ?? []].flat()) known.add(a);
  }
  for (const raw of rawArgs) {
    if (raw === "--") break;
    if (!raw.startsWith("-") || raw === "-") continue;
    const name = raw.replace(/^--?/, "").split("=")[0]!.replace(/^no-/, "");
    if (!known.has(name)) throw new CliError(`Unknown option "${raw}". Run with --help to see the options.`);
  }
}

/** Runs a command body: CliError (and other expected errors) become one stderr line and exit code 1. */
export async function guard(
  body: () => Promise<void> | void,
  err: (line: string) => void = (l) => console.error(l),
): Promise<void> {
  try {
    await body();
  } catch (e) {
    err(`error: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
  }
}

type Resolvable<T> = T | Promise<T> | (() => T | Promise<T>);
interface CommandNode {
  readonly args?: unknown;
  readonly subCommands?: Resolvable<Record<string, Resolvable<CommandNode>>>;
}
const resolveValue = async <T>(v: Resolvable<T>): Promise<T> =>
  typeof v === "function" ? await (v as () => T | Promise<T>)() : await v;

/**
 * citty only parses flags of the command that runs; a flag given to a command group
 * (`openassistant --x`, `openassistant tools --x`) would end in "No command specified".
 * Walks the groups along `rawArgs` and returns the first flag a group does not know (they know
 * only --help/-h, and --version/-v alone at the top). Leaf commands check their own flags.
 */
export async function unknownGroupFlag(root: CommandNode, rawArgs: readonly string[]): Promise<string | undefined> {
  if (rawArgs.includes("--help") || rawArgs.includes("-h")) return undefined; // citty prints the usage
  let command = root;
  let args = rawArgs;
  for (let depth = 0; ; depth++) {
    const subCommands = command.subCommands ? await resolveValue(command.subCommands) : undefined;
    const hasArgs = command.args && Object.keys(await resolveValue(command.args as Resolvable<object>)).length > 0;
    if (!subCommands || Object.keys(subCommands).length === 0 || hasArgs) return undefined;
    const nameAt = args.findIndex((a) => !a.startsWith("-") || a === "-");
    for (const flag of nameAt < 0 ? args : args.slice(0, nameAt)) {
      if (flag === "--") return undefined;
      if (depth === 0 && args.length === 1 && (flag === "--version" || flag === "-v")) continue;
      return flag;
    }
    const next = nameAt < 0 ? undefined : ownValue(subCommands, args[nameAt]!);
    if (!next) return undefined; // no or an unknown command name: citty says so
    command = await resolveValue(next);
    args = args.slice(nameAt + 1);
  }
}

/**
 * A command's subcommands as a null-prototype table: citty looks the typed name up with
 * `subCommands[name]`, which on a plain object finds `constructor`, `toString` … and runs nothing.
 */
export function commandTable<T extends Record<string, unknown>>(table: T): T {
  return Object.assign(Object.create(null) as T, table);
}

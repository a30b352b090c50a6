import type { ArgDef, ArgsDef } from "citty";
import { ownValue } from "@openassistant/core/tools";

/**
 * Help output for the CLI. Unlike citty's renderer it
 * - shows a lazily loaded command's description from a static table (`lazyCommand`), so
 *   `openassistant --help` loads no command module;
 * - uses colour only when stdout is a terminal (and NO_COLOR/TERM=dumb are not set);
 * - names the whole command path in nested usage (`openassistant plugins list`).
 */

type Resolvable<T> = T | Promise<T> | (() => T | Promise<T>);
export interface HelpNode {
  readonly meta?: Resolvable<{ name?: string; version?: string; description?: string; hidden?: boolean } | undefined>;
  readonly args?: Resolvable<ArgsDef>;
  readonly subCommands?: Resolvable<Record<string, Resolvable<HelpNode>>>;
}

/** A lazily imported subcommand whose description help can show without importing it. */
export type LazyCommand<T> = (() => Promise<T>) & { readonly description: string };
export function lazyCommand<T>(description: string, load: () => Promise<T>): LazyCommand<T> {
  return Object.assign(() => load(), { description });
}

const resolveValue = async <T>(v: Resolvable<T>): Promise<T> =>
  typeof v === "function" ? await (v as () => T | Promise<T>)() : await v;

export function useColor(
  stream: { isTTY?: boolean } = process.stdout,
  env: Record<string, string | undefined> = process.env,
): boolean {
  return Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== "dumb";
}

/** Walks the command names at the start of `rawArgs`: the deepest command reached and its path. */
export async function resolveCommandPath(
  root: HelpNode,
  rawArgs: readonly string[],
): Promise<{ node: HelpNode; path: string[] }> {
  let node = root;
  const path: string[] = [];
  for (const arg of rawArgs) {
    if (arg === "--") break;
    if (arg.startsWith("-")) continue;
    const subs = node.subCommands ? await resolveValue(node.subCommands) : undefined;
    const next = ownValue(subs, arg);
    if (!next) break;
    node = await resolveValue(next);
    path.push(arg);
  }
  return { node, path };
}

export async function renderHelp(
  node: HelpNode,
  rootName: string,
  path: readonly string[],
  color: boolean,
  rootVersion?: string,
): Promise<string> {
  const c =
    (code: number, reset = 39) =>
    (t: string) =>
      color ? `\u001B[${code}m${t}\u001B[${reset}m` : t;
  const bold = c(1, 22);
  const cyan = c(36);
  const gray = c(90);
  const underline = c(4, 24);
  const meta = (await resolveValue(node.meta)) ?? {};
  const args = Object.entries((await resolveValue(node.args)) ?? {}) as Array<[string, ArgDef]>;
  const commandName = [rootName, ...path].join(" ");
  const posLines: Array<[string, string]> = [];
  const argLines: Array<[string, string]> = [];
  const usage: string[] = [];
  for (const [name, arg] of args) {
    const hint = valueHint(name, arg);
    if (arg.type === "positional") {
      const required = arg.required !== false && arg.default === undefined;
      posLines.push([cyan(name.toUpperCase() + hint), describe(arg, required, gray)]);
      usage.push(required ? `<${name.toUpperCase()}>` : `[${name.toUpperCase()}]`);
    } else {
      const required = (arg as { required?: boolean }).required === true && arg.default === undefined;
      const aliases = [(arg as { alias?: string | string[] }).alias ?? []].flat();
      argLines.push([
        cyan([...aliases.map((a) => `-${a}`), `--${name}`].join(", ") + hint),
        describe(arg, required, gray),
      ]);
      if (required) usage.push(`--${name}${hint}`);
    }
  }
  const commandLines: Array<[string, string]> = [];
  if (node.subCommands) {
    const names: string[] = [];
    for (const [name, sub] of Object.entries(await resolveValue(node.subCommands))) {
      const description =
        typeof sub === "function" && "description" in sub
          ? String((sub as LazyCommand<unknown>).description)
          : ((await resolveValue((await resolveValue(sub)).meta))?.description ?? "");
      commandLines.push([cyan(name), description]);
      names.push(name);
    }
    usage.push(names.join("|"));
  }
  const version = meta.version ?? rootVersion;
  const lines = [gray(`${meta.description ?? ""} (${commandName}${version ? ` v${version}` : ""})`), ""];
  const hasOptions = argLines.length > 0 || posLines.length > 0;
  lines.push(
    `${underline(bold("USAGE"))} ${cyan(`${commandName}${hasOptions ? " [OPTIONS]" : ""} ${usage.join(" ")}`.trimEnd())}`,
    "",
  );
  if (posLines.length) lines.push(underline(bold("ARGUMENTS")), "", columns(posLines), "");
  if (argLines.length) lines.push(underline(bold("OPTIONS")), "", columns(argLines), "");
  if (commandLines.length)
    lines.push(
      underline(bold("COMMANDS")),
      "",
      columns(commandLines),
      "",
      `Use ${cyan(`${commandName} <command> --help`)} for more information about a command.`,
    );
  return lines.join("\n").trimEnd() + "\n";
}

function valueHint(name: string, arg: ArgDef): string {
  const hint = (arg as { valueHint?: string }).valueHint;
  if (arg.type === "positional" || arg.type === "boolean" || !arg.type) return hint ? `=<${hint}>` : "";
  if (arg.type === "enum" && arg.options?.length) return `=<${arg.options.join("|")}>`;
  return `=<${hint ?? name}>`;
}

function describe(arg: ArgDef, required: boolean, gray: (t: string) => string): string {
  return [
    arg.description,
    required ? gray("(Required)") : "",
    arg.default === undefined ? "" : gray(`(Default: ${String(arg.default)})`),
  ]
    .filter(Boolean)
    .join(" ");
}

// Visible width ignores colour codes.
const visible = (s: string) => s.replace(/\u001B\[\d+m/g, "").length;
function columns(rows: Array<[string, string]>): string {
  const width = Math.max(...rows.map(([a]) => visible(a)));
  return rows.map(([a, b]) => `  ${a}${" ".repeat(width - visible(a))}    ${b}`.trimEnd()).join("\n");
}

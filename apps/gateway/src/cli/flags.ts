import type { ArgsDef } from "citty";

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
export async function guard(body: () => Promise<void> | void, err: (line: string) => void = (l) => console.error(l)): Promise<void> {
  try {
    await body();
  } catch (e) {
    err(`error: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
  }
}

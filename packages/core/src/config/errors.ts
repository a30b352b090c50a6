/** A config problem the user must fix; the message names the file, position, key path and what to do. */
export class ConfigError extends Error {
  override name = "ConfigError";
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
    /** Dotted key path, e.g. `discord.allowedUsers[0]`, or `(root)`. */
    readonly keyPath: string,
    readonly problem: string,
    readonly hint: string,
    /** The other problems found in the same file, in file order (a report can show them all). */
    readonly more: readonly ConfigError[] = [],
  ) {
    super(`${file}:${line}:${column}: ${keyPath}: ${problem}. ${hint}`);
  }
}

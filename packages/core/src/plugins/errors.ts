/** Turns whatever an import/factory threw into a message and a fix hint naming the file. */
export function describeLoadError(err: unknown, file: string, workspace: string): { message: string; hint: string; line?: number; column?: number } {
  const e = err as { name?: string; message?: string; position?: { line?: number; column?: number } } | undefined;
  const message = (e && typeof e.message === "string" ? e.message : String(err)).split("\n")[0]!;
  const position = e?.position && typeof e.position.line === "number" ? { line: e.position.line, column: (e.position.column ?? 0) + 1 } : {};
  if (e?.name === "ToolDefinitionError") return { message, hint: `Fix the defineTool({ ... }) options in ${file}.`, ...position };
  const missing = /Cannot find (?:module|package) ['"]([^'"]+)['"]/.exec(message);
  if (missing)
    return {
      message,
      hint: `Add "${missing[1]}" to the "dependencies" of ${workspace}/package.json (installed automatically on the next load), or run \`bun add ${missing[1]}\` where the plugin lives.`,
      ...position,
    };
  if (e?.name === "BuildMessage" || e?.name === "SyntaxError" || /Unexpected|Expected/.test(message))
    return { message, hint: `Fix the syntax error in ${file}${"line" in position ? ` at line ${position.line}` : ""}.`, ...position };
  return { message: `${e?.name && e.name !== "Error" ? `${e.name}: ` : ""}${message}`, hint: `Fix the error in ${file}; the other tools and plugins still load.`, ...position };
}

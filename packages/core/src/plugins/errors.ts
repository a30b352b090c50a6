/** `?v=<n>` is how the loader busts Bun's module cache; it means nothing to the user. */
export function stripCacheQuery(text: string): string {
  return text.replace(/\?v=\d+/g, "");
}

interface BuildMessageLike {
  name?: string;
  message?: string;
  position?: { file?: string; line?: number; column?: number } | null;
}

/** Error context for a factory that may have failed because of its config. */
export interface ConfigContext {
  readonly id: string;
  /** Keys the operator set under config.<id>. */
  readonly keys: readonly string[];
  /** The config file that defines config.<id> (or the project config). */
  readonly file: string;
}

/**
 * Turns whatever an import/factory threw into a message and a fix hint naming the file. Bun reports
 * several syntax errors as an AggregateError of BuildMessages ("4 errors building …"): the first one
 * is shown with file:line:col and a count of the rest.
 */
export function describeLoadError(
  err: unknown,
  file: string,
  workspace: string,
): { message: string; hint: string; line?: number; column?: number } {
  // Whatever was thrown is plugin code: its getters (message, name, errors) may throw too.
  try {
    return describeUnsafe(err, file, workspace);
  } catch {
    return {
      message: "a thrown value that cannot be described (reading its message failed)",
      hint: `Throw an Error in ${file}; the other tools and plugins still load.`,
    };
  }
}

function describeUnsafe(
  err: unknown,
  file: string,
  workspace: string,
): { message: string; hint: string; line?: number; column?: number } {
  const unpacked = unpackAggregate(err);
  const e = unpacked.first as BuildMessageLike | undefined;
  const raw = stripCacheQuery(
    (e && typeof e.message === "string" ? e.message : nonErrorText(unpacked.first)).split("\n")[0]!,
  );
  const built = e?.position && typeof e.position.line === "number" ? e.position : undefined;
  const pos = built ?? stackPosition(unpacked.first, file);
  // Bun's BuildMessage columns are already 1-based.
  const elsewhere = pos && pos.file && stripCacheQuery(pos.file) !== file ? stripCacheQuery(pos.file) : undefined;
  // The diagnostic carries file:line:col itself; the message names a position only in another file (an imported helper).
  const position = pos && !elsewhere ? { line: pos.line!, column: Math.max(1, pos.column ?? 1) } : {};
  const at = pos && elsewhere ? `${elsewhere}:${pos.line}:${Math.max(1, pos.column ?? 1)}: ` : "";
  const more = unpacked.more ? ` (+${unpacked.more} more)` : "";
  const message = `${at}${raw}${more}`;
  if (e?.name === "ToolDefinitionError")
    return { message, hint: `Fix the defineTool({ ... }) options in ${file}.`, ...position };
  const missing = /Cannot find (?:module|package) ['"]([^'"]+)['"]/.exec(raw);
  if (missing && /^[./]/.test(missing[1]!))
    return { message, hint: `Fix the import of "${missing[1]}" in ${file}: no such file.`, ...position };
  if (missing)
    return {
      message,
      hint: `Run \`openassistant plugins install\` (it adds "${missing[1]}" to ${workspace}/package.json and installs it); for a plugin outside the workspace, run \`bun add ${missing[1]}\` where the plugin lives.`,
      ...position,
    };
  if (
    e?.name === "BuildMessage" ||
    e?.name === "ResolveMessage" ||
    e?.name === "SyntaxError" ||
    /Unexpected|Expected/.test(raw)
  )
    return { message, hint: `Fix the syntax error in ${file}${pos ? ` at line ${pos.line}` : ""}.`, ...position };
  return {
    message: `${e?.name && e.name !== "Error" ? `${e.name}: ` : ""}${message}`,
    hint: `Fix the error in ${file}; the other tools and plugins still load.`,
    ...position,
  };
}

/**
 * Where an Error thrown while importing `file` (or by defineTool called in it) came from: the first
 * stack frame in that file, when Bun's stack has one.
 */
function stackPosition(err: unknown, file: string): { file: string; line: number; column: number } | undefined {
  const stack = err instanceof Error && typeof err.stack === "string" ? err.stack : "";
  for (const m of stack.matchAll(/\(?((?:file:\/\/)?\/[^():\s]+?)(?:\?v=\d+)?:(\d+):(\d+)\)?/g)) {
    const at = m[1]!.replace(/^file:\/\//, "");
    if (at === file) return { file: at, line: Number(m[2]), column: Number(m[3]) };
  }
  return undefined;
}

/** Text for a thrown value that is not an Error (`throw null`, `throw "x"`, `throw {}`). */
function nonErrorText(value: unknown): string {
  if (typeof value === "string") return value || "an empty string (thrown instead of an Error)";
  if (value === null || value === undefined || typeof value !== "object")
    return `${String(value)} (thrown instead of an Error)`;
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return `${text.length > 200 ? `${text.slice(0, 200)}…` : text} (thrown instead of an Error)`;
}

function unpackAggregate(err: unknown): { first: unknown; more: number } {
  const errors = (err as { errors?: unknown } | undefined)?.errors;
  if (
    err instanceof AggregateError ||
    ((err as { name?: string })?.name === "AggregateError" && Array.isArray(errors))
  ) {
    const list = Array.isArray(errors) ? errors : [];
    if (list.length) return { first: list[0], more: list.length - 1 };
  }
  return { first: err, more: 0 };
}

/**
 * True when a factory's error is most likely caused by its config: a validation error (zod's
 * `issues`, ajv's `errors` with `instancePath`), or a message that mentions `config.` or one of the
 * keys the operator set.
 */
export function isConfigError(err: unknown, ctx: ConfigContext): boolean {
  try {
    return isConfigErrorUnsafe(err, ctx);
  } catch {
    return false; // a thrown value with throwing getters: report it as the plugin's own error
  }
}

function isConfigErrorUnsafe(err: unknown, ctx: ConfigContext): boolean {
  const e = err as { name?: string; message?: unknown; issues?: unknown; errors?: unknown } | undefined;
  if (!e || typeof e !== "object") return false;
  if (e.name === "ZodError" || (Array.isArray(e.issues) && e.issues.length > 0)) return true;
  if (
    Array.isArray(e.errors) &&
    e.errors.some((x) => x && typeof x === "object" && "instancePath" in x && "keyword" in x)
  )
    return true;
  const message = typeof e.message === "string" ? e.message : "";
  if (/\bconfig\./.test(message)) return true;
  return ctx.keys.some(
    (k) =>
      k !== "enabled" && new RegExp(`(^|[^\\w$])${k.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}([^\\w$]|$)`).test(message),
  );
}

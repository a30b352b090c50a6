import { z } from "zod";

export type ApprovalMode = "auto" | "required";

/** Lines a tool writes while it runs; they go to the gateway's log, prefixed with the tool path. */
export interface ToolLogger {
  info(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}

/** What `run` receives besides its input. Tools that take only `input` ignore it. */
export interface ToolContext {
  /** Aborted when the call is cancelled (run timeout, the run ended, the gateway shuts down). */
  readonly signal: AbortSignal;
  /** This call's id, as in its receipts. */
  readonly callId: string;
  /** The conversation the call belongs to, when there is one. */
  readonly sessionId?: string;
  readonly log: ToolLogger;
  /**
   * Reports how far a long call has come (an MCP server's progress notifications, a task's status):
   * surfaces show it on the turn's live status. Absent when nothing shows it (a direct call in a test).
   */
  readonly progress?: (update: ToolProgress) => void;
}

/** One progress report of a running call: `progress` grows; `total` when known; `message` says what is happening. */
export interface ToolProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/**
 * A file an approver sees whole before deciding (e.g. the source a call will write, or its diff):
 * Discord attaches it to the approval card, the terminal prints it. `name` is a plain file name.
 */
export interface PreviewFile {
  readonly name: string;
  readonly text: string;
}

/** What `defineTool()` returns and what the core runtime consumes. */
export interface ToolDefinition<TInput = any> {
  readonly _tag: "ToolDefinition";
  readonly description: string;
  readonly approval: ApprovalMode;
  /** True when the tool changes nothing outside the gateway (see ToolOptions.readOnly). */
  readonly readOnly: boolean;
  /** True when running the call twice has the effect of running it once (see ToolOptions.idempotent). */
  readonly idempotent: boolean;
  readonly args: z.ZodObject<any>;
  /** The host always passes `ctx`; it is optional here so a tool can be called directly in tests. */
  readonly run: (input: TInput, ctx?: ToolContext) => Promise<unknown>;
  readonly previewInput?: (input: TInput) => string | undefined;
  readonly previewOutput?: (output: unknown) => string | undefined;
  readonly previewFiles?: (input: TInput) => readonly PreviewFile[] | undefined;
}

/** Nested records of tools: `{ calendar: { create: defineTool(...) } }`. */
export interface ToolTree {
  readonly [name: string]: ToolDefinition | ToolTree;
}

export interface ToolOptions<TShape extends z.ZodRawShape> {
  /** What the tool does; shown to the model. */
  description: string;
  /** "auto" runs at once; "required" waits for an operator's approval. */
  approval: ApprovalMode;
  /**
   * The tool only reads: calling it changes nothing outside the gateway (no write, no message, no
   * purchase). Its call is then not a commit point: its receipts are committed together with the
   * next step that has an effect (or the run's end), so a crash can lose them only when nothing
   * after them happened. Default false: every call's receipts are committed before it runs.
   */
  readOnly?: boolean;
  /**
   * Calling the tool twice with the same input has the same effect as calling it once (a PUT, a
   * "set", a delete by id). A run resumed after a restart re-executes a call cut off mid-flight only
   * when its tool is idempotent; otherwise the call's outcome is recorded as unknown. Default false.
   */
  idempotent?: boolean;
  /** Input schema; the model's input is validated against it before `run`. */
  args: z.ZodObject<TShape>;
  /**
   * The implementation: throw to fail, return to succeed. `ctx.signal` aborts when the call is
   * cancelled: pass it to `fetch` and long work so a timed-out call really stops.
   */
  run: (input: z.output<z.ZodObject<TShape>>, ctx: ToolContext) => Promise<unknown>;
  /** Short text for approval cards and receipts instead of raw JSON. */
  previewInput?: (input: z.output<z.ZodObject<TShape>>) => string | undefined;
  /** Short text for receipts instead of raw JSON of the result. */
  previewOutput?: (output: unknown) => string | undefined;
  /** Files shown whole on the approval card (attached in Discord), e.g. the exact text a call will write. */
  previewFiles?: (input: z.output<z.ZodObject<TShape>>) => readonly PreviewFile[] | undefined;
}

export class ToolDefinitionError extends Error {
  override name = "ToolDefinitionError";
}

const optionalFns = ["previewInput", "previewOutput", "previewFiles"] as const;

export function defineTool<TShape extends z.ZodRawShape>(
  options: ToolOptions<TShape>,
): ToolDefinition<z.output<z.ZodObject<TShape>>> {
  const fail = (field: string, what: string): never => {
    throw new ToolDefinitionError(`defineTool: "${field}" ${what}`);
  };
  if (typeof options !== "object" || options === null) fail("options", "must be an object");
  if (typeof options.description !== "string" || options.description.trim() === "")
    fail("description", "must be a non-empty string describing what the tool does");
  if (options.approval !== "auto" && options.approval !== "required")
    fail("approval", `must be "auto" or "required" (got ${JSON.stringify(options.approval)})`);
  if (options.readOnly !== undefined && typeof options.readOnly !== "boolean")
    fail("readOnly", `must be true or false when given (got ${JSON.stringify(options.readOnly)})`);
  if (options.idempotent !== undefined && typeof options.idempotent !== "boolean")
    fail("idempotent", `must be true or false when given (got ${JSON.stringify(options.idempotent)})`);
  if (!(options.args instanceof z.ZodObject))
    fail("args", "must be a zod object schema, e.g. z.object({ city: z.string() })");
  if (typeof options.run !== "function")
    fail("run", "must be a function (input) => result (async or returning a value)");
  for (const key of optionalFns) {
    if (options[key] !== undefined && typeof options[key] !== "function") fail(key, "must be a function when given");
  }
  return Object.freeze({
    _tag: "ToolDefinition" as const,
    description: options.description,
    approval: options.approval,
    readOnly: options.readOnly === true,
    idempotent: options.idempotent === true,
    args: options.args,
    run: options.run as (input: z.output<z.ZodObject<TShape>>, ctx?: ToolContext) => Promise<unknown>,
    previewInput: options.previewInput,
    previewOutput: options.previewOutput,
    previewFiles: options.previewFiles,
  });
}

export function isToolDefinition(value: unknown): value is ToolDefinition {
  return typeof value === "object" && value !== null && (value as { _tag?: unknown })._tag === "ToolDefinition";
}

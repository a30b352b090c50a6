/**
 * Ambient declarations every snippet sees besides `tools`. The sandbox must provide exactly these
 * globals at run time (error classes with these names and a captured `console`); nothing else from
 * the host (no timers, fetch, process, require).
 */
export const PRELUDE = `/** Base class of errors thrown by tool calls. */
declare class ToolError extends Error {
  /** Machine-readable reason, when the host gives one. */
  readonly code?: string;
}
/** The call was not allowed: an operator denied approval, approval timed out, or policy denies the tool. The message carries the reason. */
declare class ToolDeniedError extends ToolError {}
/** The input failed validation against the tool's schema. The message lists the issues. */
declare class ToolInputError extends ToolError {}
/** Output is captured and returned with the run result. */
declare const console: {
  log(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
  debug(...args: unknown[]): void;
};
`;

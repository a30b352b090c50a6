/**
 * Code-mode sandbox: `createSandboxPool()` runs model-written JavaScript (the body of an async
 * function) in QuickJS inside pooled `bun --smol` child processes, with CPU, wall-clock, memory,
 * stack, output, log and tool-call limits. Tools cross only as JSON text via `onToolCall`.
 */
export { createSandboxPool } from "./pool.ts";
export { defaultSandboxLimits, type SandboxLimits, type SandboxPool } from "./types.ts";

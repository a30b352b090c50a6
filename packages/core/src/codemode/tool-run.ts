import type { ToolContext, ToolDefinition } from "@openassistant/sdk";
import { createDeadlines } from "./call-deadlines.ts";

export class ToolRunFailure {
  readonly _tag = "ToolRunFailure";
  constructor(readonly cause: unknown) {}
}

/**
 * A call's abort signal, made when the tool first reads `ctx.signal`: most tools never do, and an
 * AbortController per call is a measurable part of a call's cost. The first abort's reason wins,
 * as with an AbortController; a signal made after the abort is already aborted with that reason,
 * so a tool sees the same signal state and reason whenever it reads it.
 */
export class CallAbort {
  #controller: AbortController | undefined;
  #aborted: { readonly reason: Error } | undefined;

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#aborted.reason);
    }
    return this.#controller.signal;
  }

  /** The first abort's reason, undefined until aborted. */
  get reason(): Error | undefined {
    return this.#aborted?.reason;
  }

  abort(reason: Error): void {
    if (this.#aborted) return;
    this.#aborted = { reason };
    this.#controller?.abort(reason);
  }
}

/** A tool's settled run: its value, or a typed failure carrying what it threw (or the timeout). */
export type RunExit =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly failure: ToolRunFailure };

/** Every call's timeout, on one shared timer. */
const deadlines = createDeadlines();

/**
 * The tool's `run`, bounded by the call's timeout: a throw or rejection is a typed `ToolRunFailure`.
 * On timeout the tool's `ctx.signal` is aborted with the timeout as reason (so a tool that honours
 * it stops) and the call fails with the signal's reason; a result that arrives later is dropped.
 * Plain promises rather than an Effect fiber: this runs once per tool call, where a fiber, a race
 * and a forked sleep cost more CPU than the rest of the call (see docs/CONTRIBUTING.md).
 */
export function runTool(
  definition: ToolDefinition,
  input: unknown,
  toolCtx: ToolContext,
  path: string,
  timeoutMs: number,
  callAbort: CallAbort,
): Promise<RunExit> {
  return new Promise<RunExit>((resolve) => {
    let settled = false;
    const settle = (exit: RunExit) => {
      if (settled) return;
      settled = true;
      deadlines.remove(deadline);
      resolve(exit);
    };
    const deadline = deadlines.add(timeoutMs, () => {
      callAbort.abort(new Error(`${path} did not finish within ${Math.round(timeoutMs / 1000)} s`));
      settle({ ok: false, failure: new ToolRunFailure(callAbort.reason) });
    });
    let pending: unknown;
    try {
      pending = definition.run(input, toolCtx);
    } catch (e) {
      return settle({ ok: false, failure: new ToolRunFailure(e) });
    }
    Promise.resolve(pending).then(
      (value) => settle({ ok: true, value }),
      (e: unknown) => settle({ ok: false, failure: new ToolRunFailure(e) }),
    );
  });
}

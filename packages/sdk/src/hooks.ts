import type { ApprovalMode } from "./define-tool.ts";

/** A value or a promise of it: every hook may be sync or async. */
export type Awaitable<T> = T | Promise<T>;

/** Who asked the assistant for the turn a hook sees (absent for gateway-wide events). */
export interface HookRequester {
  /** The surface's user id (a Discord user id, the terminal's user). */
  readonly userId: string;
  /** The roles the gateway knows for that user (`approver` when they may decide approvals); empty when none. */
  readonly roles: readonly string[];
}

/** What every hook receives besides its event. Hook code runs on the host, trusted like the plugin. */
export interface HookContext {
  /** The id of the plugin whose hook this is. */
  readonly pluginId: string;
  readonly requestedBy?: HookRequester;
  readonly sessionId?: string;
  readonly runId?: string;
  /** Aborted when the hook's time is up or the run is cancelled: stop work and return. */
  readonly signal: AbortSignal;
}

/** One tool call as `tool.before` / `tool.after` see it. */
export interface HookToolCall {
  /** The dotted path the model called, e.g. `github.issues.create`. */
  readonly path: string;
  readonly callId: string;
  /**
   * The input after validation against the tool's schema (after earlier hooks' replacements):
   * always an object (every tool's args are a zod object), its fields unknown until checked.
   */
  readonly input: Readonly<Record<string, unknown>>;
  /** The tool author's approval mode. */
  readonly approval: ApprovalMode;
}

/**
 * What `tool.before` answers: nothing (the call goes on), a denial with its reason (the model sees
 * it), a requirement that a person approves (shown on the approval card), or a replaced input
 * (validated again against the tool's schema; a replacement that fails it denies the call).
 */
export type ToolBeforeAnswer =
  | undefined
  // biome-ignore lint/suspicious/noConfusingVoidType: a hook without a return statement returns void; authors need not write `return undefined`
  | void
  | { readonly deny: string }
  | { readonly requireApproval: { readonly title: string; readonly summary: string } }
  | { readonly input: Readonly<Record<string, unknown>> };

/** How a call ended, as `tool.after` sees it. */
export type HookToolOutcome =
  | { readonly status: "succeeded"; readonly result: unknown }
  | { readonly status: "failed"; readonly error: string }
  | { readonly status: "denied"; readonly reason: string; readonly by: string };

/** What `tool.after` answers: nothing, or the result the model sees instead (succeeded calls only; the receipt keeps the original). */
// biome-ignore lint/suspicious/noConfusingVoidType: a hook without a return statement returns void; authors need not write `return undefined`
export type ToolAfterAnswer = undefined | void | { readonly result: unknown };

/** A message a person sent, as `chat.message` sees it. */
export interface HookChatMessage {
  readonly text: string;
  /** The surface's user id, when the surface knows who sent it. */
  readonly userId?: string;
  readonly sessionId: string;
}

/** What `chat.message` answers: nothing, or context added for the model on this turn. */
// biome-ignore lint/suspicious/noConfusingVoidType: a hook without a return statement returns void; authors need not write `return undefined`
export type ChatMessageAnswer = undefined | void | { readonly context: string };

export interface HookRunStart {
  readonly runId: string;
  readonly sessionId?: string;
}

export interface HookRunEnd {
  readonly runId: string;
  readonly sessionId?: string;
  readonly ok: boolean;
  /** How many tool calls the run made. */
  readonly calls: number;
}

export interface HookApprovalDecided {
  readonly callId: string;
  readonly toolPath: string;
  readonly decision: "approved" | "denied";
  /** Who decided: an operator id, `rule:<id>`, `timeout`, `system`. */
  readonly by: string;
  readonly reason?: string;
}

/**
 * A plugin's hooks (`definePlugin({ hooks })`). Hooks of all plugins run by `priority` (higher
 * first, default 0), then in load order. Each has `timeoutMs` (default 5 000). A `tool.before` that
 * throws, times out or answers something else than the shapes above denies the call (fails
 * closed); the other hooks fail open (their failure is logged and the gateway goes on).
 */
export interface PluginHooks {
  readonly priority?: number;
  readonly timeoutMs?: number;
  readonly tool?: {
    readonly before?: (call: HookToolCall, ctx: HookContext) => Awaitable<ToolBeforeAnswer>;
    readonly after?: (call: HookToolCall, outcome: HookToolOutcome, ctx: HookContext) => Awaitable<ToolAfterAnswer>;
  };
  readonly chat?: {
    readonly message?: (message: HookChatMessage, ctx: HookContext) => Awaitable<ChatMessageAnswer>;
  };
  readonly prompt?: {
    /** Text appended to the system prompt of every turn (nothing: append nothing). */
    // biome-ignore lint/suspicious/noConfusingVoidType: a hook without a return statement returns void; authors need not write `return undefined`
    readonly system?: (ctx: HookContext) => Awaitable<string | undefined | void>;
  };
  readonly run?: {
    readonly start?: (run: HookRunStart, ctx: HookContext) => Awaitable<void>;
    readonly end?: (run: HookRunEnd, ctx: HookContext) => Awaitable<void>;
  };
  readonly approval?: {
    readonly decided?: (event: HookApprovalDecided, ctx: HookContext) => Awaitable<void>;
  };
  readonly gateway?: {
    readonly start?: (ctx: HookContext) => Awaitable<void>;
    readonly stop?: (ctx: HookContext) => Awaitable<void>;
  };
}

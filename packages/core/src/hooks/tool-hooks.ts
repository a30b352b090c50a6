import type { HookToolCall, HookToolOutcome } from "@openassistant/sdk";
import { ownValue } from "../tools/own-keys.ts";
import { callHook, type HookScope } from "./call.ts";
import type { HookSet } from "./set.ts";

/** A hook's answer that changed something, in the order the hooks gave them. */
export type HookChange =
  | { readonly kind: "input"; readonly pluginId: string; readonly input: unknown }
  | { readonly kind: "requireApproval"; readonly pluginId: string; readonly title: string; readonly summary: string }
  | { readonly kind: "result"; readonly pluginId: string; readonly result: unknown };

/** The input again through the tool's schema: its parsed value, or why it fails. */
export type Revalidate = (
  input: unknown,
) =>
  | { ok: true; value: unknown }
  | { ok: false; message: string }
  | Promise<{ ok: true; value: unknown } | { ok: false; message: string }>;

/** What the `tool.before` hooks decided together. */
export interface BeforeVerdict {
  /** Set when a hook denied the call (or failed: hooks fail closed); later hooks did not run. */
  readonly denied?: { readonly pluginId: string; readonly reason: string };
  /** The input the call goes on with (each replacement validated again). */
  readonly input: unknown;
  readonly changes: readonly HookChange[];
}

/**
 * Runs every `tool.before` hook in order; each sees the input as the hooks before it left it. A
 * denial stops the rest. A hook that throws, times out or answers anything but `undefined`,
 * `{ deny }`, `{ requireApproval: { title, summary } }` or `{ input }` denies the call, naming its
 * plugin; so does a replaced input that fails the tool's schema.
 */
export async function runToolBefore(
  set: HookSet,
  call: HookToolCall,
  scope: HookScope,
  signal: AbortSignal | undefined,
  revalidate: Revalidate,
): Promise<BeforeVerdict> {
  const changes: HookChange[] = [];
  let input: unknown = call.input;
  for (const hook of set.byEvent["tool.before"]) {
    // Every tool's args are a zod object: what passed them (and each revalidated replacement) is an object.
    const seen: HookToolCall = { ...call, input: input as HookToolCall["input"] };
    const answer = await callHook(hook, scope, signal, (fn, ctx) => fn(seen, ctx));
    const deny = (reason: string): BeforeVerdict => ({ denied: { pluginId: hook.pluginId, reason }, input, changes });
    if (!answer.ok)
      return deny(
        `the tool.before hook of plugin "${hook.pluginId}" ${answer.why}; the call is denied (hooks fail closed)`,
      );
    const value: unknown = answer.value;
    if (value === undefined) continue;
    const decision = readDecision(value);
    if (!decision)
      return deny(
        `the tool.before hook of plugin "${hook.pluginId}" answered ${describeJunk(value)}, not undefined, { deny }, { requireApproval: { title, summary } } or { input }; the call is denied (hooks fail closed)`,
      );
    if (decision.kind === "deny") return deny(decision.reason);
    if (decision.kind === "requireApproval") {
      changes.push({ ...decision, pluginId: hook.pluginId });
      continue;
    }
    const parsed = await revalidate(decision.input);
    if (!parsed.ok)
      return deny(
        `the tool.before hook of plugin "${hook.pluginId}" replaced the input with one that fails ${call.path}'s schema: ${parsed.message}`,
      );
    input = parsed.value;
    changes.push({ kind: "input", pluginId: hook.pluginId, input });
  }
  return { input, changes };
}

type Decision =
  | { readonly kind: "deny"; readonly reason: string }
  | { readonly kind: "requireApproval"; readonly title: string; readonly summary: string }
  | { readonly kind: "input"; readonly input: unknown };

/** One of the answers a `tool.before` may give, read from own keys only; anything else is junk. */
function readDecision(value: unknown): Decision | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1) return undefined;
  const deny = ownValue(value as Readonly<Record<string, unknown>>, "deny");
  if (typeof deny === "string" && deny.trim()) return { kind: "deny", reason: deny };
  const required = ownValue(value as Readonly<Record<string, unknown>>, "requireApproval");
  if (typeof required === "object" && required !== null) {
    const title = ownValue(required as Readonly<Record<string, unknown>>, "title");
    const summary = ownValue(required as Readonly<Record<string, unknown>>, "summary");
    if (typeof title === "string" && typeof summary === "string") return { kind: "requireApproval", title, summary };
    return undefined;
  }
  if (Object.hasOwn(value, "input")) return { kind: "input", input: (value as { input: unknown }).input };
  return undefined;
}

function describeJunk(value: unknown): string {
  if (typeof value !== "object" || value === null) return value === null ? "null" : `a ${typeof value}`;
  if (Array.isArray(value)) return "an array";
  const keys = Object.keys(value);
  return keys.length ? `an object with keys ${keys.slice(0, 5).join(", ")}` : "an empty object";
}

/**
 * Runs every `tool.after` hook in order. On a succeeded call each may replace the result the
 * model sees (the next hook sees the replacement); on other outcomes they only observe. A hook
 * that fails is logged and skipped (observers fail open).
 */
export async function runToolAfter(
  set: HookSet,
  call: HookToolCall,
  outcome: HookToolOutcome,
  scope: HookScope,
  signal: AbortSignal | undefined,
): Promise<readonly HookChange[]> {
  const changes: HookChange[] = [];
  let current = outcome;
  for (const hook of set.byEvent["tool.after"]) {
    const seen = current;
    const answer = await callHook(hook, scope, signal, (fn, ctx) => fn(call, seen, ctx));
    if (!answer.ok) {
      set.log(`[${hook.pluginId}] tool.after hook for ${call.path} ${answer.why} (ignored: observer hooks fail open)`);
      continue;
    }
    const value: unknown = answer.value;
    if (value === undefined) continue;
    const replaced =
      typeof value === "object" && value !== null && Object.hasOwn(value, "result")
        ? { result: (value as { result: unknown }).result }
        : undefined;
    if (!replaced) {
      set.log(
        `[${hook.pluginId}] tool.after hook for ${call.path} answered neither undefined nor { result } (ignored)`,
      );
      continue;
    }
    if (current.status !== "succeeded") {
      set.log(
        `[${hook.pluginId}] tool.after hook for ${call.path} replaced the result of a ${current.status} call (ignored: only a succeeded call's result can be replaced)`,
      );
      continue;
    }
    current = { status: "succeeded", result: replaced.result };
    changes.push({ kind: "result", pluginId: hook.pluginId, result: replaced.result });
  }
  return changes;
}

import { SURFACES } from "../surfaces/registry.ts";
import type { SurfaceDefinition } from "../surfaces/surface.ts";
import type { ApprovalBroker } from "@openassistant/core/approvals";
import type { Diagnostic } from "@openassistant/core/config";
import { type HookSet, runObservers, systemPromptAdditions } from "@openassistant/core/hooks";
import { isCriticalDiagnostic } from "@openassistant/core/plugins";
import type { GatewaySettings } from "../settings.ts";
import type { ToolSource } from "../tools-source.ts";

/** Thrown by `createGateway` when a critical plugin (`config.<id>.critical`) did not load. */
export class CriticalPluginError extends Error {
  override name = "CriticalPluginError";
}

/** A critical plugin that is missing or broken stops the start: a firewall never disappears silently. */
export function refuseWithoutCriticalPlugins(tools: Pick<ToolSource, "current">): void {
  let diagnostics: readonly Diagnostic[];
  try {
    diagnostics = tools.current().diagnostics;
  } catch {
    return; // no snapshot yet: its first reader gets the error, as before (and no run starts without one)
  }
  const critical = diagnostics.filter(isCriticalDiagnostic);
  if (critical.length === 0) return;
  throw new CriticalPluginError(
    `the gateway does not start: ${critical.map((d) => `${d.message} (${d.source}${d.line ? `:${d.line}` : ""}); ${d.hint}`).join("; ")}`,
  );
}

/**
 * The hooks for observer events (gateway.start/stop, approval.decided): a snapshot that cannot be
 * built means no observer runs (they fail open); runs read the hooks with their tools instead.
 */
export function observerHooks(tools: Pick<ToolSource, "current">): () => HookSet | undefined {
  return () => {
    try {
      return tools.current().hooks;
    } catch {
      return undefined;
    }
  };
}

/**
 * What hooks see of who asked: `approver` when `http.approvers` names the user or a configured
 * surface says the user is one of its operators (the registry answers, as it does for the console).
 */
export function rolesFrom(
  settings: Pick<GatewaySettings, "http" | "surfaces">,
  surfaces: readonly SurfaceDefinition[] = SURFACES,
): (userId: string) => readonly string[] {
  const http = new Set(settings.http?.approvers ?? []);
  const sections = settings.surfaces ?? {};
  const asked = surfaces.filter((s) => s.operators && Object.hasOwn(sections, s.id));
  const isApprover = (userId: string) =>
    http.has(userId) || asked.some((s) => s.operators!.isOperator(sections[s.id], userId));
  return (userId) => (isApprover(userId) ? ["approver"] : []);
}

/** `approval.decided` hooks observe every decision the broker settles (not awaited: they fail open, logged). */
export function observeApprovals(approvals: Pick<ApprovalBroker, "subscribe">, hooks: () => HookSet | undefined) {
  return approvals.subscribe((e) => {
    const set = hooks();
    if (e.type !== "decided" || !set || set.byEvent["approval.decided"].length === 0) return;
    const { request, decision } = e;
    const event = {
      callId: request.callId,
      toolPath: request.toolPath,
      decision: decision.decision,
      by: decision.by,
      ...(decision.reason ? { reason: decision.reason } : {}),
    };
    const scope = { runId: request.runId, ...(request.sessionId ? { sessionId: request.sessionId } : {}) };
    void runObservers(set, "approval.decided", scope, (fn, ctx) => fn(event, ctx));
  });
}

/**
 * What the hooks add to a turn's system prompt once, for the whole turn: each `chat.message` hook's
 * context for this message (named by plugin). Undefined when none adds any. The `prompt.system`
 * text is asked before each model round instead (roundSystemText).
 */
export async function turnHookText(
  set: HookSet | undefined,
  message: { readonly text: string; readonly userId?: string; readonly sessionId: string },
  rolesOf: (userId: string) => readonly string[],
): Promise<string | undefined> {
  if (!set || set.byEvent["chat.message"].length === 0) return undefined;
  const contexts = await runObservers(set, "chat.message", hookScope(message, rolesOf), (fn, ctx) => fn(message, ctx));
  const parts = contexts.flatMap(({ pluginId, value }) =>
    value && typeof value.context === "string" && value.context.trim()
      ? [`Context from plugin ${pluginId}:\n${value.context.trim()}`]
      : [],
  );
  return parts.length ? parts.join("\n\n") : undefined;
}

/**
 * #32: the `prompt.system` text of a turn, asked again before each model round (so a status a round
 * changed shows in the next one). Undefined (nothing asked, ever) when the set has no such hook.
 */
export function roundSystemText(
  set: HookSet | undefined,
  message: { readonly userId?: string; readonly sessionId: string },
  rolesOf: (userId: string) => readonly string[],
): (() => Promise<string | undefined>) | undefined {
  if (!set || set.byEvent["prompt.system"].length === 0) return undefined;
  const scope = hookScope(message, rolesOf);
  return async () => {
    const parts = await systemPromptAdditions(set, scope);
    return parts.length ? parts.join("\n\n") : undefined;
  };
}

function hookScope(
  message: { readonly userId?: string; readonly sessionId: string },
  rolesOf: (userId: string) => readonly string[],
) {
  const { userId } = message;
  return {
    sessionId: message.sessionId,
    ...(userId ? { requestedBy: { userId, roles: rolesOf(userId) } } : {}),
  };
}

/** `gateway.start` / `gateway.stop`: observers, awaited (each within its time limit), failures logged. */
export async function gatewayHook(set: HookSet | undefined, event: "gateway.start" | "gateway.stop"): Promise<void> {
  if (!set || set.byEvent[event].length === 0) return;
  await runObservers(set, event, {}, (fn, ctx) => fn(ctx));
}

/** The turn's settings with the hooks' text appended to the system prompt (config `model.system` first). */
export function withSystemText<T extends { readonly system?: string }>(settings: T, text: string | undefined): T {
  if (text === undefined) return settings;
  return { ...settings, system: settings.system ? `${settings.system}\n\n${text}` : text };
}

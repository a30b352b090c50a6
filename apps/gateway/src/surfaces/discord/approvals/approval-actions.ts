import type { DecideResult } from "@openassistant/core/approvals";
import type { ApprovalDecision } from "@openassistant/core/approvals";
import { isApprover, NOT_APPROVER_TEXT, type Actor } from "../authorize.ts";
import { discordOperatorId } from "../operator-id.ts";
import type { SurfacePort } from "../../port.ts";
import { echo, fitText } from "../render/fit.ts";
import { formatDuration } from "../render/render-card.ts";
import { STOPPING_TEXT, type SurfaceLife } from "../life.ts";
import { alwaysTtlMsOf, type DiscordSurfaceConfig } from "../surface-config.ts";

/** Longest deny reason kept (the modal allows 1000; /approve's reason option more). */
export const MAX_REASON = 1000;

export type DecisionKind = "approve" | "always" | "deny";

export type ApplyResult =
  | { readonly allowed: false; readonly text: string }
  | { readonly allowed: true; readonly result: DecideResult; readonly text: string };

/** The decision a Discord operator's action stands for. "Approve always" uses the configured scope and expiry. */
export function decisionFor(
  config: DiscordSurfaceConfig,
  kind: DecisionKind,
  userId: string,
  reason?: string,
): ApprovalDecision {
  const by = discordOperatorId(userId);
  if (kind === "approve") return { decision: "approved", by };
  if (kind === "always")
    return {
      decision: "approved",
      by,
      always: { scope: config.alwaysScope ?? "session", ttlMs: alwaysTtlMsOf(config) },
    };
  // A reason is typed by a person and shown to the model, in receipts and on cards: capped.
  return reason ? { decision: "denied", by, reason: fitText(reason, MAX_REASON) } : { decision: "denied", by };
}

/**
 * Checks that the surface still acts and the approver (server side, on every action, on the roles
 * the caller just read) and records the decision. The first decision wins; a duplicate or late one
 * changes nothing and says what was decided.
 */
export async function applyDecision(
  gateway: Pick<SurfacePort, "broker">,
  config: DiscordSurfaceConfig,
  life: SurfaceLife,
  actor: Pick<Actor, "userId" | "roleIds">,
  callId: string,
  kind: DecisionKind,
  reason?: string,
): Promise<ApplyResult> {
  if (!life.open) return { allowed: false, text: STOPPING_TEXT };
  if (!isApprover(config, actor)) return { allowed: false, text: NOT_APPROVER_TEXT };
  const result = await gateway.broker.decide(callId, decisionFor(config, kind, actor.userId, reason));
  return { allowed: true, result, text: describeResult(callId, result) };
}

export function describeResult(callId: string, result: DecideResult): string {
  switch (result.outcome) {
    case "unknown":
      return `There is no approval with call id \`${echo(callId)}\`. Copy the id from the card's footer, or see \`/approvals\`.`;
    case "already-decided": {
      const d = result.decision;
      if (d.by === "timeout")
        return `\`${result.request.toolPath}\` (${callId}) already expired and was denied. Nothing changed.`;
      if (d.by === "system")
        return `\`${result.request.toolPath}\` (${callId}) was closed: ${d.reason ?? "by the system"}. Nothing changed.`;
      return `\`${result.request.toolPath}\` (${callId}) was already ${d.decision}. Nothing changed.`;
    }
    case "decided": {
      const d = result.decision;
      const rule = result.rule
        ? ` Created rule \`${result.rule.id}\` (${result.rule.scope === "global" ? "everywhere" : "this conversation"}${d.always?.ttlMs ? `, ${formatDuration(d.always.ttlMs)}` : ""}); revoke it with \`/rules revoke ${result.rule.id}\`.`
        : "";
      return `${d.decision === "approved" ? "Approved" : "Denied"} \`${result.request.toolPath}\` (${callId}).${rule}`;
    }
  }
}

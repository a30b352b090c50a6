/**
 * Deterministic component ids for approval cards: `oa:<action>:<callId>`.
 * Built only from the call id, so a card posted before a restart still resolves afterwards.
 */
export type CardAction = "approve" | "always" | "deny" | "denyr" | ListAction;
/** Buttons of the `/approvals` list (an ephemeral message, not a card). */
export type ListAction = "lapprove" | "ldeny";

/** The modal opened by "Deny with reason" uses its own prefix so it never looks like a button. */
const DENY_MODAL_PREFIX = "oa:denym:";
export const DENY_REASON_FIELD = "reason";

const ACTIONS: readonly CardAction[] = ["approve", "always", "deny", "denyr", "lapprove", "ldeny"];
/** Discord caps custom_id at 100 characters. */
const MAX_CUSTOM_ID = 100;

export function cardButtonId(action: CardAction, callId: string): string {
  const id = `oa:${action}:${callId}`;
  if (id.length > MAX_CUSTOM_ID)
    throw new Error(
      `discord: call id "${callId.slice(0, 20)}…" is too long for a button custom_id (max ${MAX_CUSTOM_ID} chars)`,
    );
  return id;
}

export function denyModalId(callId: string): string {
  return `${DENY_MODAL_PREFIX}${callId}`;
}

export type ParsedCustomId =
  | { readonly kind: "card"; readonly action: CardAction; readonly callId: string }
  | { readonly kind: "deny-modal"; readonly callId: string };

/** Returns null for anything that is not ours (other bots' components, malformed ids). */
export function parseCustomId(customId: string): ParsedCustomId | null {
  if (customId.startsWith(DENY_MODAL_PREFIX)) {
    const callId = customId.slice(DENY_MODAL_PREFIX.length);
    return callId ? { kind: "deny-modal", callId } : null;
  }
  const m = /^oa:([a-z]+):(.+)$/.exec(customId);
  if (!m) return null;
  const action = m[1] as CardAction;
  if (!ACTIONS.includes(action)) return null;
  return { kind: "card", action, callId: m[2]! };
}

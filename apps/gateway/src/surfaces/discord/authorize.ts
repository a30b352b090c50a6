import type { DiscordSurfaceConfig } from "./surface-config.ts";

/** Where a message or interaction came from, as far as authorization cares. */
export interface Actor {
  readonly userId: string;
  /** Role ids of the member in the guild it came from; empty in DMs. */
  readonly roleIds: readonly string[];
  /** Null for DMs. */
  readonly guildId: string | null;
  readonly channelId: string;
  /** For threads: the channel the thread lives in (channel allowlists apply to it). */
  readonly parentChannelId?: string | null;
}

export type AuthResult = { readonly ok: true } | { readonly ok: false; readonly reason: "user" | "guild" | "channel" };

function has(list: readonly string[] | undefined, id: string | null | undefined): boolean {
  return !!id && !!list && list.includes(id);
}

/**
 * May this actor talk to the bot here? Fails closed: with no allowed users and no allowed roles
 * configured, nobody may. Guild/channel lists restrict where, when set; DMs skip them.
 */
export function authorizeChat(config: DiscordSurfaceConfig, actor: Actor): AuthResult {
  if (actor.guildId !== null) {
    if (config.allowedGuilds?.length && !has(config.allowedGuilds, actor.guildId))
      return { ok: false, reason: "guild" };
    if (
      config.allowedChannels?.length &&
      !has(config.allowedChannels, actor.channelId) &&
      !has(config.allowedChannels, actor.parentChannelId)
    ) {
      return { ok: false, reason: "channel" };
    }
  }
  const userOk = has(config.allowedUsers, actor.userId) || actor.roleIds.some((r) => has(config.allowedRoles, r));
  return userOk ? { ok: true } : { ok: false, reason: "user" };
}

/**
 * May this actor decide approvals? `approvers` (user or role ids) when configured, else whoever
 * may chat. Checked on every click, server side; where the card is shown does not matter.
 */
export function isApprover(config: DiscordSurfaceConfig, actor: Pick<Actor, "userId" | "roleIds">): boolean {
  if (config.approvers?.length) {
    return has(config.approvers, actor.userId) || actor.roleIds.some((r) => has(config.approvers, r));
  }
  return has(config.allowedUsers, actor.userId) || actor.roleIds.some((r) => has(config.allowedRoles, r));
}

/** User ids that get DM copies of approval cards (role ids cannot be DMed). */
export function approverUserIds(config: DiscordSurfaceConfig): string[] {
  return [...new Set(config.approvers?.length ? config.approvers : (config.allowedUsers ?? []))];
}

export const REFUSAL_TEXT =
  "Sorry, I can only help people this assistant is set up for. If you think you should have access, ask the operator to add your Discord user id to `discord.allowedUsers`.";

export const NOT_APPROVER_TEXT =
  "Sorry, you are not allowed to decide approvals here. Nothing was changed. (Approvers are set in `discord.approvers`.)";

/** At most one refusal per user per window, so an unauthorized user cannot make the bot spam. */
export function createRefusalLimiter(windowMs = 60 * 60 * 1000, now: () => number = Date.now) {
  const last = new Map<string, number>();
  return {
    /** True when a refusal should be sent now (and records it). */
    shouldRefuse(userId: string): boolean {
      const t = now();
      const prev = last.get(userId);
      if (prev !== undefined && t - prev < windowMs) return false;
      last.set(userId, t);
      if (last.size > 10_000) {
        for (const [k, v] of last) if (t - v >= windowMs) last.delete(k);
      }
      return true;
    },
  };
}
export type RefusalLimiter = ReturnType<typeof createRefusalLimiter>;

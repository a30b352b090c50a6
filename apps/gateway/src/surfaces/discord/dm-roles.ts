import type { Client } from "discord.js";
import type { Actor } from "./authorize.ts";
import type { SurfaceLog } from "./logger.ts";
import type { DiscordSurfaceConfig } from "./surface-config.ts";

/** How long a lookup that refused a message is reused to refuse the next (a flood of DMs costs one lookup per user per minute). */
const DM_ROLES_TTL_MS = 60_000;
/** Bound on guilds asked per lookup, so a bot in many guilds cannot turn one DM into many requests. */
const MAX_GUILDS = 10;
/** A form must be the first answer to a click (within 3 s): a lookup for it gives up (no roles) well before that. */
const LOOKUP_TIMEOUT_MS = 1_500;
/** A click already acknowledged may wait longer (e.g. behind Discord's rate limit for member fetches). */
export const ACKED_LOOKUP_TIMEOUT_MS = 10_000;

/**
 * A DM carries no member, hence no roles. For users allowed (or made approvers) through role ids,
 * this looks the user up as a member of the allowed guilds (`GET /guilds/:id/members/:user`) and
 * returns the actor with the roles they hold there. Lookups that fail or time out count as no roles
 * (fails closed).
 *
 * Fresh facts: a remembered lookup may refuse, never grant. The surface does not ask for the
 * privileged GuildMembers intent, so it never hears that a role was taken away
 * (GUILD_MEMBER_UPDATE / GUILD_MEMBER_REMOVE); a remembered role list is therefore reused only when
 * it fails the caller's check (a stale "no" only delays access), only for chat messages (a flood
 * of DMs), never for decisions; every grant comes from a lookup made for that very message or
 * click. Cost: one member fetch per configured guild for each DM decision and for each DM message
 * that passes, none for guild actions (the interaction or message carries the member).
 */
export function createDmRoleResolver(deps: {
  client: Client;
  config: DiscordSurfaceConfig;
  log: SurfaceLog;
  ttlMs?: number;
  now?: () => number;
}) {
  const { client, config, log } = deps;
  const ttlMs = deps.ttlMs ?? DM_ROLES_TTL_MS;
  const now = deps.now ?? Date.now;
  const refused = new Map<string, { roles: string[]; at: number }>();

  function guildIds(): string[] {
    const ids = config.allowedGuilds?.length
      ? config.allowedGuilds
      : config.guildId
        ? [config.guildId]
        : [...client.guilds.cache.keys()];
    return [...new Set(ids)].slice(0, MAX_GUILDS);
  }

  async function fetchRoles(userId: string): Promise<string[]> {
    const all = await Promise.all(
      guildIds().map(async (guildId) => {
        try {
          const guild = client.guilds.cache.get(guildId) ?? (await client.guilds.fetch(guildId));
          const member = await guild.members.fetch({ user: userId, force: true });
          return [...member.roles.cache.keys()].filter((r) => r !== guildId); // drop @everyone
        } catch (e) {
          // 10007 Unknown Member is the normal "not in that guild"; anything else is worth a log line.
          if ((e as { code?: number }).code !== 10007) log(`looking up roles of user ${userId} in guild ${guildId}`, e);
          return [];
        }
      }),
    );
    return [...new Set(all.flat())];
  }

  /** Roles fetched now, or null when the lookup timed out. */
  async function lookup(userId: string, timeoutMs: number): Promise<string[] | null> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs)));
    const roles = await Promise.race([fetchRoles(userId), timeout]);
    clearTimeout(timer);
    if (roles === null) log(`looking up roles of user ${userId} timed out after ${timeoutMs} ms; treating as no roles`);
    return roles;
  }

  function remember(userId: string, roles: string[]): void {
    refused.set(userId, { roles, at: now() });
    if (refused.size > 10_000) {
      for (const [k, v] of refused) if (now() - v.at >= ttlMs) refused.delete(k);
    }
  }

  /** Whether any role ids are configured that a DM lookup could match. */
  function rolesMatter(): boolean {
    return !!(config.allowedRoles?.length || config.approvers?.length);
  }

  return {
    /**
     * The actor with guild roles filled in when it comes from a DM and `passes` needs them; guild
     * actors (whose interaction or message carries the member) are returned as they are.
     */
    async withRoles<A extends Pick<Actor, "userId" | "roleIds" | "guildId">>(
      actor: A,
      passes: (a: A) => boolean,
      use: "chat" | "decision",
      timeoutMs = LOOKUP_TIMEOUT_MS,
    ): Promise<A> {
      if (actor.guildId !== null || actor.roleIds.length > 0 || passes(actor) || !rolesMatter()) return actor;
      const hit = use === "chat" ? refused.get(actor.userId) : undefined;
      if (hit && now() - hit.at < ttlMs) {
        const remembered = { ...actor, roleIds: hit.roles };
        if (!passes(remembered)) return remembered;
      }
      const roles = await lookup(actor.userId, timeoutMs);
      const fresh = { ...actor, roleIds: roles ?? [] };
      if (roles === null) return fresh;
      if (passes(fresh)) refused.delete(actor.userId);
      else remember(actor.userId, roles);
      return fresh;
    },
  };
}
export type DmRoleResolver = ReturnType<typeof createDmRoleResolver>;

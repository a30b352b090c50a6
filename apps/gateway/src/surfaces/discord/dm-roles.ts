import type { Client } from "discord.js";
import type { Actor } from "./authorize.ts";
import type { SurfaceLog } from "./logger.ts";
import type { DiscordSurfaceConfig } from "./surface-config.ts";

/** How long a looked-up member's roles are trusted (role changes apply within this time). */
const DM_ROLES_TTL_MS = 60_000;
/** Bound on guilds asked per lookup, so a bot in many guilds cannot turn one DM into many requests. */
const MAX_GUILDS = 10;
/** A click must be acknowledged within 3 s; a slow lookup gives up (no roles) well before that. */
const LOOKUP_TIMEOUT_MS = 1_500;

/**
 * A DM carries no member, hence no roles. For users allowed (or made approvers) through role ids,
 * this looks the user up as a member of the allowed guilds (`GET /guilds/:id/members/:user`) and
 * returns the actor with the roles they hold there. Results, including "not a member", are cached
 * for `ttlMs`; lookups that fail or time out count as no roles (fails closed).
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
  const cache = new Map<string, { roles: string[]; at: number; pending?: Promise<string[]> }>();

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

  async function rolesOf(userId: string): Promise<string[]> {
    const hit = cache.get(userId);
    if (hit && now() - hit.at < ttlMs) return hit.pending ?? hit.roles;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), LOOKUP_TIMEOUT_MS)));
    const pending = Promise.race([fetchRoles(userId), timeout]).then((roles) => {
      clearTimeout(timer);
      if (roles === null) {
        log(`looking up roles of user ${userId} timed out after ${LOOKUP_TIMEOUT_MS} ms; treating as no roles`);
        cache.delete(userId);
        return [];
      }
      cache.set(userId, { roles, at: now() });
      return roles;
    });
    cache.set(userId, { roles: [], at: now(), pending });
    if (cache.size > 10_000) {
      for (const [k, v] of cache) if (!v.pending && now() - v.at >= ttlMs) cache.delete(k);
    }
    return pending;
  }

  /** Whether any role ids are configured that a DM lookup could match. */
  function rolesMatter(): boolean {
    return !!(config.allowedRoles?.length || config.approvers?.length);
  }

  return {
    /** The actor with guild roles filled in when it comes from a DM; guild actors are returned as is. */
    async withRoles<A extends Pick<Actor, "userId" | "roleIds" | "guildId">>(actor: A): Promise<A> {
      if (actor.guildId !== null || actor.roleIds.length > 0 || !rolesMatter()) return actor;
      return { ...actor, roleIds: await rolesOf(actor.userId) };
    },
  };
}
export type DmRoleResolver = ReturnType<typeof createDmRoleResolver>;

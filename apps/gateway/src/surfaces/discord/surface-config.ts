/**
 * The slice of `config.discord` this surface reads. Structurally the same as the core config's
 * `discord` section, so the loaded config object can be passed straight in.
 */
export interface DiscordSurfaceConfig {
  /** Bot token (config usually writes `${DISCORD_TOKEN}`); never logged. */
  readonly token: string;
  readonly allowedUsers?: readonly string[];
  readonly allowedRoles?: readonly string[];
  readonly allowedGuilds?: readonly string[];
  readonly allowedChannels?: readonly string[];
  /** User or role ids who may decide approvals. Default: the allowed users and roles. */
  readonly approvers?: readonly string[];
  /** Register slash commands in this guild (instant) instead of globally. */
  readonly guildId?: string;
  /** A channel id where every approval card is also posted (and where cards go when nothing else can take them). */
  readonly approvalsChannel?: string;
  /** Also DM each approval card to every approver user id. */
  readonly approvalDmToApprovers?: boolean;
  /** Scope of rules made by "Approve always". Default "session". */
  readonly alwaysScope?: "session" | "global";
  /** Lifetime of rules made by "Approve always", in hours (config `discord.alwaysTtlHours`). Default 24. */
  readonly alwaysTtlHours?: number;
  /** Same in milliseconds; wins over `alwaysTtlHours` (tests). */
  readonly alwaysTtlMs?: number;
}

export const DEFAULT_ALWAYS_TTL_MS = 24 * 60 * 60 * 1000;

/** Lifetime of an "Approve always" rule in ms, from whichever of the two settings is given. */
export function alwaysTtlMsOf(config: Pick<DiscordSurfaceConfig, "alwaysTtlMs" | "alwaysTtlHours">): number {
  if (config.alwaysTtlMs !== undefined) return config.alwaysTtlMs;
  if (config.alwaysTtlHours !== undefined) return config.alwaysTtlHours * 60 * 60 * 1000;
  return DEFAULT_ALWAYS_TTL_MS;
}

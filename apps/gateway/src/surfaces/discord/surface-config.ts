import { secret } from "@openassistant/core/config";
import { z } from "zod";

/** The `discord` section of the config (its defaults, its checks): this surface's own schema (surfaces/registry.ts). */
export const discordConfigSchema = z
  .strictObject({
    token: secret(z.string()).optional(),
    allowedUsers: z.array(z.string()).default([]),
    allowedRoles: z.array(z.string()).default([]),
    allowedGuilds: z.array(z.string()).default([]),
    allowedChannels: z.array(z.string()).default([]),
    approvers: z.array(z.string()).optional(),
    /** Guild where slash commands are registered (instant); global registration otherwise. */
    guildId: z.string().optional(),
    approvalDmToApprovers: z.boolean().default(false),
    /** Channel id where every approval card is also posted; approvers can always find pending cards there. */
    approvalsChannel: z.string().optional(),
    /** Where an "Approve always" rule applies: the conversation it was made in, or everywhere. */
    alwaysScope: z.enum(["session", "global"]).default("session"),
    /** Hours until an "Approve always" rule expires. */
    alwaysTtlHours: z.number().positive().default(24),
  })
  .prefault({});

export type DiscordConfigSection = z.output<typeof discordConfigSchema>;

/**
 * The slice of `config.discord` this surface reads. Structurally the same as `discordConfigSchema`'s
 * output with a token, so the loaded section can be passed straight in.
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

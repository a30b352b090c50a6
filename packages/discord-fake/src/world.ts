import type { SnowflakeGenerator } from "./snowflake.ts";
import { ChannelType, type Json } from "./types.ts";

export interface UserRecord {
  id: string;
  username: string;
  global_name: string | null;
  discriminator: string;
  avatar: string | null;
  bot: boolean;
}

export interface RoleRecord {
  id: string;
  name: string;
  permissions: string;
  position: number;
  color: number;
  hoist: boolean;
  managed: boolean;
  mentionable: boolean;
}

export interface MemberRecord {
  userId: string;
  roles: string[];
  nick: string | null;
  joinedAt: string;
}

export interface GuildRecord {
  id: string;
  name: string;
  ownerId: string;
  roles: Map<string, RoleRecord>;
  members: Map<string, MemberRecord>;
  channelIds: string[];
}

/** Every permission bit Discord currently defines (used for owners, administrators and app_permissions). */
export const ALL_PERMISSIONS = ((1n << 51n) - 1n).toString();
const ADMINISTRATOR = 8n;
/** ATTACH_FILES, "Allows for uploading images and files" (https://docs.discord.com/developers/topics/permissions#permissions-bitwise-permission-flags). */
export const ATTACH_FILES = 1n << 15n;
/** View channels, send messages, read history and the other defaults of a new guild's @everyone. */
export const DEFAULT_EVERYONE_PERMISSIONS = "1071698660929";

/** The fake's in-memory Discord: users, guilds, channels, messages. Produces API-shaped JSON. */
export class World {
  readonly users = new Map<string, UserRecord>();
  readonly guilds = new Map<string, GuildRecord>();
  readonly channels = new Map<string, Json>();
  readonly channelMessages = new Map<string, Json[]>();
  readonly messageChannel = new Map<string, string>();
  /** userId → DM channel id */
  readonly dmChannels = new Map<string, string>();
  /** Users whose DMs are closed to the bot (sending to them: 50007). */
  readonly dmsClosed = new Set<string>();
  /** Channels where the bot lacks permission to post (sending, threads: 50013). */
  readonly deniedChannels = new Set<string>();

  constructor(
    readonly botId: string,
    readonly ids: SnowflakeGenerator,
  ) {}

  user(id: string): UserRecord {
    const user = this.users.get(id);
    if (!user) throw new Error(`fake-discord: unknown user ${id}; create it with fake.createUser() first`);
    return user;
  }

  guild(id: string): GuildRecord {
    const guild = this.guilds.get(id);
    if (!guild) throw new Error(`fake-discord: unknown guild ${id}; create it with fake.createGuild() first`);
    return guild;
  }

  channel(id: string): Json {
    const channel = this.channels.get(id);
    if (!channel) throw new Error(`fake-discord: unknown channel ${id}; create it with fake.createChannel() first`);
    return channel;
  }

  apiUser(id: string): Json {
    const u = this.user(id);
    return {
      id: u.id,
      username: u.username,
      global_name: u.global_name,
      discriminator: u.discriminator,
      avatar: u.avatar,
      bot: u.bot,
      public_flags: 0,
      flags: 0,
      banner: null,
      accent_color: null,
      avatar_decoration_data: null,
    };
  }

  apiRole(role: RoleRecord): Json {
    return { ...role, icon: null, unicode_emoji: null, flags: 0, tags: undefined };
  }

  /** Member JSON; `withUser: false` gives the partial member Discord attaches to messages. */
  apiMember(guildId: string, userId: string, withUser = true): Json | null {
    const member = this.guilds.get(guildId)?.members.get(userId);
    if (!member) return null;
    const json: Json = {
      roles: [...member.roles],
      nick: member.nick,
      avatar: null,
      banner: null,
      joined_at: member.joinedAt,
      premium_since: null,
      deaf: false,
      mute: false,
      pending: false,
      flags: 0,
      communication_disabled_until: null,
    };
    if (withUser) json.user = this.apiUser(userId);
    return json;
  }

  memberPermissions(guildId: string, userId: string): string {
    const guild = this.guild(guildId);
    if (guild.ownerId === userId) return ALL_PERMISSIONS;
    const member = guild.members.get(userId);
    let bits = BigInt(guild.roles.get(guild.id)?.permissions ?? "0");
    for (const roleId of member?.roles ?? []) bits |= BigInt(guild.roles.get(roleId)?.permissions ?? "0");
    return bits & ADMINISTRATOR ? ALL_PERMISSIONS : bits.toString();
  }

  /**
   * A member's permissions in a channel, computed as Discord documents it
   * (https://docs.discord.com/developers/topics/permissions#permission-overwrites): the guild's
   * (administrator: all), then the channel's @everyone overwrite, its role overwrites together,
   * then the member's own overwrite, each deny before allow. A thread uses its parent's overwrites.
   */
  channelPermissions(channelId: string, userId: string): bigint {
    const channel = this.channel(channelId);
    const guildId = channel.guild_id as string | undefined;
    if (!guildId) return BigInt(ALL_PERMISSIONS);
    const base = BigInt(this.memberPermissions(guildId, userId));
    if (base & ADMINISTRATOR) return BigInt(ALL_PERMISSIONS);
    const holder = isThread(channel.type) && channel.parent_id ? this.channel(channel.parent_id) : channel;
    const overwrites = (holder.permission_overwrites ?? []) as Array<{
      id: string;
      type: number;
      allow: string;
      deny: string;
    }>;
    const apply = (bits: bigint, o?: { allow: string; deny: string }) =>
      o ? (bits & ~BigInt(o.deny)) | BigInt(o.allow) : bits;
    let bits = apply(
      base,
      overwrites.find((o) => o.type === 0 && o.id === guildId),
    );
    const roles = this.guild(guildId).members.get(userId)?.roles ?? [];
    const roleOverwrites = overwrites.filter((o) => o.type === 0 && roles.includes(o.id));
    bits = apply(bits, {
      deny: roleOverwrites.reduce((d, o) => d | BigInt(o.deny), 0n).toString(),
      allow: roleOverwrites.reduce((a, o) => a | BigInt(o.allow), 0n).toString(),
    });
    return apply(
      bits,
      overwrites.find((o) => o.type === 1 && o.id === userId),
    );
  }

  guildChannels(guildId: string, threads: boolean): Json[] {
    return this.guild(guildId)
      .channelIds.map((id) => this.channels.get(id))
      .filter((c): c is Json => !!c && isThread(c.type) === threads);
  }

  apiGuild(guildId: string): Json {
    const g = this.guild(guildId);
    return {
      id: g.id,
      name: g.name,
      icon: null,
      splash: null,
      discovery_splash: null,
      owner_id: g.ownerId,
      afk_channel_id: null,
      afk_timeout: 300,
      verification_level: 0,
      default_message_notifications: 0,
      explicit_content_filter: 0,
      roles: [...g.roles.values()].map((r) => this.apiRole(r)),
      emojis: [],
      stickers: [],
      features: [],
      mfa_level: 0,
      application_id: null,
      system_channel_id: null,
      system_channel_flags: 0,
      rules_channel_id: null,
      max_members: 500000,
      vanity_url_code: null,
      description: null,
      banner: null,
      premium_tier: 0,
      premium_subscription_count: 0,
      preferred_locale: "en-US",
      public_updates_channel_id: null,
      nsfw_level: 0,
      premium_progress_bar_enabled: false,
      safety_alerts_channel_id: null,
    };
  }

  /** Full GUILD_CREATE payload. Without the GuildMembers intent Discord sends only the bot's own member. */
  apiGuildCreate(guildId: string, allMembers: boolean): Json {
    const g = this.guild(guildId);
    const memberIds = [...g.members.keys()].filter((id) => allMembers || id === this.botId);
    return {
      ...this.apiGuild(guildId),
      joined_at: g.members.get(this.botId)?.joinedAt ?? new Date().toISOString(),
      large: false,
      unavailable: false,
      member_count: g.members.size,
      voice_states: [],
      members: memberIds.map((id) => this.apiMember(guildId, id)),
      channels: this.guildChannels(guildId, false).map(stripGuildId),
      threads: this.guildChannels(guildId, true).filter((t) => !t.thread_metadata?.archived),
      presences: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
    };
  }

  /** The DM channel between the bot and `userId`, created on first use. */
  dmChannel(userId: string): Json {
    const existing = this.dmChannels.get(userId);
    if (existing) return this.channel(existing);
    this.user(userId);
    const id = this.ids.next();
    const channel: Json = { id, type: ChannelType.DM, last_message_id: null, flags: 0, recipient_ids: [userId] };
    this.channels.set(id, channel);
    this.channelMessages.set(id, []);
    this.dmChannels.set(userId, id);
    return channel;
  }

  /** Channel JSON as the API returns it (DMs get their `recipients`). */
  apiChannel(id: string): Json {
    const c = this.channel(id);
    if (c.type !== ChannelType.DM) return structuredClone(c);
    const { recipient_ids, ...rest } = c;
    return { ...structuredClone(rest), recipients: (recipient_ids as string[]).map((u) => this.apiUser(u)) };
  }

  messagesOf(channelId: string): Json[] {
    const list = this.channelMessages.get(channelId);
    if (!list) throw new Error(`fake-discord: unknown channel ${channelId}`);
    return list;
  }

  findMessage(messageId: string): Json | undefined {
    const channelId = this.messageChannel.get(messageId);
    return channelId ? this.channelMessages.get(channelId)?.find((m) => m.id === messageId) : undefined;
  }

  addMessage(message: Json): void {
    this.messagesOf(message.channel_id).push(message);
    this.messageChannel.set(message.id, message.channel_id);
    const channel = this.channel(message.channel_id);
    channel.last_message_id = message.id;
    if (isThread(channel.type)) {
      channel.message_count = (channel.message_count ?? 0) + 1;
      channel.total_message_sent = (channel.total_message_sent ?? 0) + 1;
    }
  }

  removeMessage(messageId: string): Json | undefined {
    const channelId = this.messageChannel.get(messageId);
    if (!channelId) return undefined;
    const list = this.messagesOf(channelId);
    const index = list.findIndex((m) => m.id === messageId);
    this.messageChannel.delete(messageId);
    return index >= 0 ? list.splice(index, 1)[0] : undefined;
  }

  /** Users and roles mentioned in `content` (`<@id>`, `<@!id>`, `<@&id>`, `@everyone`). */
  mentionsIn(content: string, guildId: string | undefined): { users: Json[]; roles: string[]; everyone: boolean } {
    const userIds = new Set<string>();
    for (const m of content.matchAll(/<@!?(\d+)>/g)) if (this.users.has(m[1]!)) userIds.add(m[1]!);
    const roles = [...content.matchAll(/<@&(\d+)>/g)].map((m) => m[1]!);
    const users = [...userIds].map((id) => {
      const user = this.apiUser(id);
      const member = guildId ? this.apiMember(guildId, id, false) : null;
      return member ? { ...user, member } : user;
    });
    return { users, roles, everyone: /@(everyone|here)/.test(content) };
  }
}

export function isThread(type: number): boolean {
  return (
    type === ChannelType.PublicThread || type === ChannelType.PrivateThread || type === ChannelType.AnnouncementThread
  );
}

export function isTextLike(type: number): boolean {
  return (
    type === ChannelType.GuildText ||
    type === ChannelType.DM ||
    type === ChannelType.GuildAnnouncement ||
    type === ChannelType.GuildVoice ||
    isThread(type)
  );
}

function stripGuildId(channel: Json): Json {
  const { guild_id: _ignored, ...rest } = channel;
  return rest;
}

import type { Server } from "bun";
import { CommandStore } from "./commands.ts";
import { Gateway, type ConnectionInfo, type SocketData } from "./gateway.ts";
import { DiscordHttpError, jsonResponse } from "./http.ts";
import { InteractionService, type FakeInteraction } from "./interactions.ts";
import { MessageService, type StoredFile } from "./messages.ts";
import { findMalformedUtf16 } from "./limits.ts";
import type { Ping } from "./mentions.ts";
import {
  DEFAULT_ROUTE_LIMIT,
  RateLimiter,
  type RateLimitOptions,
  type RouteLimit,
  type RouteMatcher,
} from "./ratelimit.ts";
import { registerAppRoutes } from "./rest-app.ts";
import { registerChannelRoutes } from "./rest-channels.ts";
import { Router } from "./router.ts";
import type { Services } from "./services.ts";
import { createThread } from "./threads.ts";
import {
  ChannelType,
  Intents,
  PRIVILEGED_INTENTS,
  describeMatcher,
  matchCall,
  type CallMatcher,
  type CallPredicate,
  type Json,
  type RecordedCall,
  type RecordedFrame,
} from "./types.ts";
import * as actions from "./user-actions.ts";
import { SnowflakeGenerator } from "./snowflake.ts";
import { DEFAULT_EVERYONE_PERMISSIONS, World, isThread, type MemberRecord, type RoleRecord } from "./world.ts";

export interface FakeDiscordOptions {
  /** Bot token the fake accepts (REST `Authorization: Bot <token>` and IDENTIFY). */
  token?: string;
  botId?: string;
  botName?: string;
  /** Defaults to the bot id, as for real bots. */
  applicationId?: string;
  applicationFlags?: number;
  /** HELLO heartbeat_interval. Default 41250 (Discord's); use ~100–500 ms in tests. */
  heartbeatIntervalMs?: number;
  /** Privileged intents the "developer portal" enabled (bitfield). Default: all. Others close with 4014. */
  privilegedIntents?: number;
  /** Callback deadline after INTERACTION_CREATE. Default 3000 (Discord's). */
  interactionAckTimeoutMs?: number;
  /** Interaction token lifetime for webhook edits/follow-ups. Default 15 min. */
  interactionTokenTtlMs?: number;
  /** Create a guild, a #general channel and a member "alice" (see `fake.defaults`). Default true. */
  seed?: boolean;
  /** Per-route rate-limit buckets (default 10 requests per second per route and resource); null = never 429. */
  routeLimit?: RouteLimit | null;
}

/** A 4xx a test says it provokes on purpose (see `expectErrors`). */
export interface ErrorExpectation {
  method?: string;
  path?: RegExp | string;
  status?: number;
  /** Discord's JSON error code, e.g. 10003 Unknown Channel. */
  code?: number;
  /** How many such errors are expected. Default: any number. */
  times?: number;
}

export interface SeedIds {
  guildId: string;
  channelId: string;
  /** A regular member without roles. */
  userId: string;
  /** The guild owner (has every permission). */
  ownerId: string;
}

type Waiter<T> = { test: (item: T) => boolean; resolve: (item: T) => void };

/** A Discord REST API + gateway emulator for real clients (discord.js 14) on 127.0.0.1. */
export class FakeDiscord {
  readonly token: string;
  readonly botId: string;
  readonly applicationId: string;
  /** Every REST request, in order. */
  readonly calls: RecordedCall[] = [];
  /** Every gateway frame, both directions, in order. */
  readonly frames: RecordedFrame[] = [];
  /** Ids created by the default seed (null with `seed: false`). */
  readonly defaults: SeedIds | null;

  private readonly world: World;
  private readonly gateway: Gateway;
  private readonly services: Services;
  private readonly router = new Router();
  private readonly rateLimiter: RateLimiter;
  private readonly expectations: Array<ErrorExpectation & { left: number }> = [];
  /** 4xx responses no test declared (see `expectErrors`); the shared e2e harness fails on any. */
  readonly unexpectedErrors: RecordedCall[] = [];
  private outage = false;
  private readonly callWaiters = new Set<Waiter<RecordedCall>>();
  private readonly frameWaiters = new Set<Waiter<RecordedFrame>>();
  private server: Server<SocketData> | null = null;

  constructor(options: FakeDiscordOptions = {}) {
    const ids = new SnowflakeGenerator();
    this.botId = options.botId ?? ids.next();
    this.applicationId = options.applicationId ?? this.botId;
    this.token = options.token ?? `fake.${this.botId}.bot-token`;
    this.world = new World(this.botId, ids);
    this.rateLimiter = new RateLimiter(options.routeLimit === undefined ? DEFAULT_ROUTE_LIMIT : options.routeLimit);
    this.world.users.set(this.botId, {
      id: this.botId,
      username: options.botName ?? "fake-bot",
      global_name: null,
      discriminator: "0",
      avatar: null,
      bot: true,
    });
    const config: Services["config"] = {
      botId: this.botId,
      applicationId: this.applicationId,
      applicationFlags: options.applicationFlags ?? 0,
      baseUrl: () => this.url,
      gatewayUrl: () => this.gatewayUrl,
    };
    this.gateway = new Gateway(this.world, {
      token: this.token,
      botId: this.botId,
      applicationId: this.applicationId,
      applicationFlags: config.applicationFlags,
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250,
      allowedPrivilegedIntents: options.privilegedIntents ?? PRIVILEGED_INTENTS,
      resumeUrl: () => `${this.url.replace(/^http/, "ws")}/resume-gateway`,
      record: (frame) => this.recordFrame(frame),
    });
    const messages = new MessageService(this.world, this.gateway, () => this.url);
    const interactions = new InteractionService(this.world, this.gateway, messages, this.applicationId, {
      ackTimeoutMs: options.interactionAckTimeoutMs ?? 3000,
      tokenTtlMs: options.interactionTokenTtlMs ?? 15 * 60_000,
    });
    const commands = new CommandStore(this.applicationId, this.world.ids);
    this.services = { world: this.world, gateway: this.gateway, messages, interactions, commands, config };
    registerAppRoutes(this.router, this.services);
    registerChannelRoutes(this.router, this.services);
    this.defaults = options.seed === false ? null : this.seed();
  }

  /** Starts the HTTP + WebSocket server on 127.0.0.1 (port 0 = any free port). */
  async listen(port = 0): Promise<this> {
    this.server = Bun.serve<SocketData>({
      hostname: "127.0.0.1",
      port,
      fetch: (req, server) => this.fetch(req, server),
      websocket: {
        open: (ws) => this.gateway.onOpen(ws),
        message: (ws, message) => this.gateway.onMessage(ws, message),
        close: (ws, code) => this.gateway.onClose(ws, code),
      },
    });
    return this;
  }

  /** `http://127.0.0.1:PORT` */
  get url(): string {
    if (!this.server) throw new Error("fake-discord: not listening; use startFakeDiscord()");
    return `http://127.0.0.1:${this.server.port}`;
  }

  /** Pass as discord.js `rest: { api: fake.apiUrl }`. */
  get apiUrl(): string {
    return `${this.url}/api`;
  }

  get gatewayUrl(): string {
    return `${this.url.replace(/^http/, "ws")}/gateway`;
  }

  // ---------------------------------------------------------------- setup

  createUser(input: { username?: string; id?: string; bot?: boolean; globalName?: string } = {}): Json {
    const id = input.id ?? this.world.ids.next();
    this.world.users.set(id, {
      id,
      username: input.username ?? `user${this.world.users.size}`,
      global_name: input.globalName ?? null,
      discriminator: "0",
      avatar: null,
      bot: input.bot ?? false,
    });
    return this.world.apiUser(id);
  }

  /** Creates a guild with its @everyone role; the bot joins it (GUILD_CREATE if a client is connected). */
  createGuild(input: { name?: string; id?: string; ownerId?: string; botIsMember?: boolean } = {}): Json {
    const id = input.id ?? this.world.ids.next();
    const ownerId = input.ownerId ?? this.botId;
    const everyone: RoleRecord = {
      id,
      name: "@everyone",
      permissions: DEFAULT_EVERYONE_PERMISSIONS,
      position: 0,
      color: 0,
      hoist: false,
      managed: false,
      mentionable: false,
    };
    this.world.guilds.set(id, {
      id,
      name: input.name ?? "Fake Guild",
      ownerId,
      roles: new Map([[id, everyone]]),
      members: new Map(),
      channelIds: [],
    });
    this.putMember(id, ownerId, [], null);
    if (input.botIsMember !== false) {
      this.putMember(id, this.botId, [], null);
      this.dispatchGuild(
        "GUILD_CREATE",
        () => this.world.apiGuildCreate(id, false),
        (s) => this.world.apiGuildCreate(id, (s.intents & Intents.GuildMembers) !== 0),
      );
    }
    return this.world.apiGuild(id);
  }

  /** Creates a guild channel (text by default). Thread types need `parentId`. */
  createChannel(input: {
    guildId: string;
    name?: string;
    type?: number;
    parentId?: string;
    topic?: string;
    ownerId?: string;
  }): Json {
    const type = input.type ?? ChannelType.GuildText;
    if (isThread(type)) {
      if (!input.parentId) throw new Error("fake-discord: createChannel of a thread needs parentId");
      return createThread(this.services, {
        parentId: input.parentId,
        name: input.name ?? "thread",
        ownerId: input.ownerId ?? this.botId,
        type,
      });
    }
    const guild = this.world.guild(input.guildId);
    const id = this.world.ids.next();
    const channel: Json = {
      id,
      type,
      guild_id: guild.id,
      name: input.name ?? `channel-${guild.channelIds.length + 1}`,
      position: guild.channelIds.length,
      parent_id: input.parentId ?? null,
      permission_overwrites: [],
      nsfw: false,
      flags: 0,
      ...(type === ChannelType.GuildCategory
        ? {}
        : { topic: input.topic ?? null, last_message_id: null, rate_limit_per_user: 0 }),
      ...(type === ChannelType.GuildForum
        ? { available_tags: [], default_reaction_emoji: null, default_sort_order: null, default_forum_layout: 0 }
        : {}),
    };
    this.world.channels.set(id, channel);
    this.world.channelMessages.set(id, []);
    guild.channelIds.push(id);
    this.dispatchGuild("CHANNEL_CREATE", () => structuredClone(channel), null, guild.id);
    return structuredClone(channel);
  }

  createRole(input: { guildId: string; name: string; permissions?: string | bigint; id?: string }): Json {
    const guild = this.world.guild(input.guildId);
    const role: RoleRecord = {
      id: input.id ?? this.world.ids.next(),
      name: input.name,
      permissions: String(input.permissions ?? "0"),
      position: guild.roles.size,
      color: 0,
      hoist: false,
      managed: false,
      mentionable: false,
    };
    guild.roles.set(role.id, role);
    this.dispatchGuild(
      "GUILD_ROLE_CREATE",
      () => ({ guild_id: guild.id, role: this.world.apiRole(role) }),
      null,
      guild.id,
    );
    return this.world.apiRole(role);
  }

  /**
   * Adds (or updates: new roles replace the old ones) a guild member. Dispatches GUILD_MEMBER_ADD or
   * GUILD_MEMBER_UPDATE only to clients with the privileged GuildMembers intent
   * (https://docs.discord.com/developers/events/gateway#list-of-intents — GUILD_MEMBERS (1 << 1):
   * GUILD_MEMBER_ADD, GUILD_MEMBER_UPDATE, GUILD_MEMBER_REMOVE). Interactions and messages made
   * afterwards carry the member as it is now.
   */
  addMember(input: { guildId: string; userId: string; roles?: string[]; nick?: string }): Json {
    const guild = this.world.guild(input.guildId);
    this.world.user(input.userId);
    for (const role of input.roles ?? [])
      if (!guild.roles.has(role)) throw new Error(`fake-discord: unknown role ${role} in guild ${guild.id}`);
    const existed = guild.members.has(input.userId);
    this.putMember(guild.id, input.userId, input.roles ?? [], input.nick ?? null);
    const payload = { ...this.world.apiMember(guild.id, input.userId)!, guild_id: guild.id };
    this.gateway.dispatch(existed ? "GUILD_MEMBER_UPDATE" : "GUILD_MEMBER_ADD", payload, (s) =>
      s.intents & Intents.GuildMembers ? payload : null,
    );
    return payload;
  }

  /**
   * A moderator removes (kicks) a member: GUILD_MEMBER_REMOVE `{ guild_id, user }` goes only to clients
   * with the GuildMembers intent (https://docs.discord.com/developers/events/gateway#list-of-intents,
   * https://docs.discord.com/developers/events/gateway-events#guild-member-remove); afterwards
   * `GET /guilds/:id/members/:user` answers 10007 Unknown Member.
   */
  removeMember(input: { guildId: string; userId: string }): void {
    const guild = this.world.guild(input.guildId);
    if (!guild.members.delete(input.userId))
      throw new Error(`fake-discord: user ${input.userId} is not a member of guild ${guild.id}`);
    const payload = { guild_id: guild.id, user: this.world.apiUser(input.userId) };
    this.gateway.dispatch("GUILD_MEMBER_REMOVE", payload, (s) => (s.intents & Intents.GuildMembers ? payload : null));
  }

  /**
   * A moderator deletes a role: every member loses it and GUILD_ROLE_DELETE `{ guild_id, role_id }` goes
   * to clients with the Guilds intent (https://docs.discord.com/developers/events/gateway#list-of-intents —
   * GUILDS (1 << 0): GUILD_ROLE_CREATE, GUILD_ROLE_UPDATE, GUILD_ROLE_DELETE;
   * https://docs.discord.com/developers/events/gateway-events#guild-role-delete). Members are not
   * sent a GUILD_MEMBER_UPDATE for it. The @everyone role cannot be deleted.
   */
  deleteRole(input: { guildId: string; roleId: string }): void {
    const guild = this.world.guild(input.guildId);
    if (input.roleId === guild.id) throw new Error("fake-discord: the @everyone role cannot be deleted");
    if (!guild.roles.delete(input.roleId))
      throw new Error(`fake-discord: unknown role ${input.roleId} in guild ${guild.id}`);
    for (const member of guild.members.values()) member.roles = member.roles.filter((r) => r !== input.roleId);
    this.dispatchGuild("GUILD_ROLE_DELETE", () => ({ guild_id: guild.id, role_id: input.roleId }), null, guild.id);
  }

  /** A moderator deletes a channel or thread (CHANNEL_DELETE / THREAD_DELETE); later requests to it get 10003 Unknown Channel. */
  deleteChannel(channelId: string): void {
    const channel = this.world.channel(channelId);
    const payload = this.world.apiChannel(channelId);
    this.world.channels.delete(channelId);
    if (channel.guild_id) {
      const guild = this.world.guild(channel.guild_id);
      guild.channelIds = guild.channelIds.filter((id) => id !== channelId);
      this.gateway.dispatch(isThread(channel.type) ? "THREAD_DELETE" : "CHANNEL_DELETE", payload, (s) =>
        s.intents & Intents.Guilds ? payload : null,
      );
    }
  }

  /** A moderator archives (or locks) a thread (THREAD_UPDATE). */
  archiveThread(threadId: string, options: { locked?: boolean } = {}): void {
    const thread = this.world.channel(threadId);
    if (!isThread(thread.type)) throw new Error(`fake-discord: ${threadId} is not a thread`);
    thread.thread_metadata.archived = true;
    thread.thread_metadata.archive_timestamp = new Date().toISOString();
    if (options.locked) thread.thread_metadata.locked = true;
    const payload = this.world.apiChannel(threadId);
    this.gateway.dispatch("THREAD_UPDATE", payload, (s) => (s.intents & Intents.Guilds ? payload : null));
  }

  /** The DM channel id between the bot and a user (created on first use). */
  dmChannelId(userId: string): string {
    return this.world.dmChannel(userId).id;
  }

  // ---------------------------------------------------------------- user actions

  /** A user posts a message (guild channel, thread, or DM with `dmFrom`). Returns the message JSON. */
  sendUserMessage(input: actions.SendUserMessageInput): Json {
    return actions.sendUserMessage(this.services, input);
  }

  /** A user starts typing (TYPING_START; needs the *MessageTyping intents on the client). */
  startTyping(input: { channelId: string; userId: string }): void {
    actions.startTyping(this.services, input);
  }

  clickButton(input: actions.ClickButtonInput): FakeInteraction {
    return actions.clickButton(this.services, input);
  }

  selectMenu(input: actions.SelectMenuInput): FakeInteraction {
    return actions.selectMenu(this.services, input);
  }

  submitModal(input: actions.SubmitModalInput): FakeInteraction {
    return actions.submitModal(this.services, input);
  }

  runSlashCommand(input: actions.RunSlashCommandInput): FakeInteraction {
    return actions.runSlashCommand(this.services, input);
  }

  /** A user typing `value` into an autocomplete option; the bot's choices are the callback's `data.choices`. */
  runAutocomplete(input: actions.RunAutocompleteInput): FakeInteraction {
    return actions.runAutocomplete(this.services, input);
  }

  // ---------------------------------------------------------------- inspection

  /** Current messages of a channel, oldest first, including components, edits and ephemeral replies. */
  messages(channelId: string): Json[] {
    return this.world.messagesOf(channelId).map((m) => structuredClone(m));
  }

  message(messageId: string): Json | undefined {
    const message = this.world.findMessage(messageId);
    return message ? structuredClone(message) : undefined;
  }

  channel(channelId: string): Json | undefined {
    return this.world.channels.has(channelId) ? this.world.apiChannel(channelId) : undefined;
  }

  /** Registered application commands: global (no argument) or for one guild. */
  commands(guildId?: string): Json[] {
    return this.services.commands.list(guildId ?? null);
  }

  /** Resolves with the first recorded REST call (past or future) that matches; see `CallMatcher.since`. */
  waitFor(matcher: CallMatcher | CallPredicate, timeoutMs = 5000): Promise<RecordedCall> {
    return this.waitIn(
      this.calls,
      this.callWaiters,
      (c) => matchCall(matcher, c),
      timeoutMs,
      () => {
        const recent = this.calls
          .slice(-8)
          .map((c) => `${c.method} ${c.path} → ${c.status}`)
          .join("; ");
        return `no REST call matched ${describeMatcher(matcher)} within ${timeoutMs} ms (recent: ${recent || "none"})`;
      },
    );
  }

  /** Resolves with the first recorded gateway frame (past or future) that matches. */
  waitForFrame(predicate: (frame: RecordedFrame) => boolean, timeoutMs = 5000): Promise<RecordedFrame> {
    return this.waitIn(
      this.frames,
      this.frameWaiters,
      predicate,
      timeoutMs,
      () => `no gateway frame matched within ${timeoutMs} ms`,
    );
  }

  // ---------------------------------------------------------------- faults

  /** The next `times` requests matching `matcher` get a 429 with Discord's rate-limit headers. */
  rateLimitNext(
    matcher: RouteMatcher | ((method: string, path: string) => boolean),
    options: RateLimitOptions = {},
  ): void {
    this.rateLimiter.arm(matcher, options);
  }

  /** Closes (or reopens) a user's DMs to the bot: sending there fails with 50007 "Cannot send messages to this user". */
  setDmsClosed(userId: string, closed = true): void {
    this.world.user(userId);
    if (closed) this.world.dmsClosed.add(userId);
    else this.world.dmsClosed.delete(userId);
  }

  /** Takes (or gives back) the bot's permission to post in a channel (and its threads): 50013 "Missing Permissions". */
  setMissingPermission(channelId: string, missing = true): void {
    this.world.channel(channelId);
    if (missing) this.world.deniedChannels.add(channelId);
    else this.world.deniedChannels.delete(channelId);
  }

  /**
   * Sets (or with `null` removes) a channel's permission overwrite for a role (`type` 0; the guild
   * id is @everyone) or a member (`type` 1), as Discord's Edit Channel Permissions does; the bot's
   * permissions in the channel follow (`World.channelPermissions`).
   */
  setPermissionOverwrite(
    channelId: string,
    overwrite:
      | { id: string; type: 0 | 1; allow?: bigint | string; deny?: bigint | string }
      | { id: string; remove: true },
  ): void {
    const channel = this.world.channel(channelId);
    const list = ((channel.permission_overwrites ?? []) as Json[]).filter((o) => o.id !== overwrite.id);
    if (!("remove" in overwrite))
      list.push({
        id: overwrite.id,
        type: overwrite.type,
        allow: String(overwrite.allow ?? "0"),
        deny: String(overwrite.deny ?? "0"),
      });
    channel.permission_overwrites = list;
  }

  /**
   * Discord unreachable: REST answers 503 (as Cloudflare does during an outage), gateway connections
   * drop abruptly and new ones are refused, until `setOutage(false)`.
   */
  setOutage(down: boolean): void {
    this.outage = down;
    if (down) this.gateway.dropConnections({ abrupt: true });
  }

  /** Declares 4xx responses the test provokes on purpose, so they are not counted as unexpected. */
  expectErrors(expectation: ErrorExpectation): void {
    this.expectations.push({ ...expectation, left: expectation.times ?? Number.POSITIVE_INFINITY });
  }

  /** Throws listing every 4xx the bot provoked that no test expected (DMs closed / missing permission / armed 429s count as expected). */
  assertNoUnexpectedErrors(): void {
    if (this.unexpectedErrors.length === 0) return;
    const list = this.unexpectedErrors
      .map((c) => `${c.method} ${c.path} → ${c.status} ${JSON.stringify(c.response)}`)
      .join("\n  ");
    throw new Error(
      `fake-discord: the bot made ${this.unexpectedErrors.length} request(s) Discord rejects:\n  ${list}`,
    );
  }

  /** Bot messages that notify people (@everyone/@here, roles, users) after allowed_mentions. */
  get pings(): readonly Ping[] {
    return this.services.messages.pings;
  }

  /** Drops every gateway connection (sessions stay resumable). Default: close code 4000; `abrupt` terminates the TCP socket. */
  dropConnection(options: { code?: number; abrupt?: boolean } = {}): number {
    return this.gateway.dropConnections(options);
  }

  /** Sends op 7 RECONNECT: clients should reconnect to resume_gateway_url and RESUME. */
  requestReconnect(): number {
    return this.gateway.requestReconnect();
  }

  /** Sends op 9 INVALID_SESSION (not resumable by default: clients must IDENTIFY again). */
  invalidateSession(options: { resumable?: boolean } = {}): number {
    return this.gateway.invalidateSessions(options.resumable ?? false);
  }

  /** Sends op 1 HEARTBEAT from the server (clients must heartbeat at once). */
  requestHeartbeat(): void {
    this.gateway.requestHeartbeat();
  }

  /** Dispatches a raw gateway event to every session (no intent filtering). */
  dispatch(t: string, d: Json): void {
    this.gateway.dispatch(t, d);
  }

  /** Every gateway connection so far (path tells fresh connects from resumes). */
  get connections(): readonly ConnectionInfo[] {
    return this.gateway.connectionLog;
  }

  /** Number of gateway sessions with a live connection. */
  get connectedSessions(): number {
    return [...this.gateway.sessions.values()].filter((s) => s.valid && s.connection?.open).length;
  }

  async close(): Promise<void> {
    this.gateway.closeAll();
    this.callWaiters.clear();
    this.frameWaiters.clear();
    await this.server?.stop(true);
    this.server = null;
  }

  // ---------------------------------------------------------------- internals

  private seed(): SeedIds {
    const owner = this.createUser({ username: "owner" });
    const user = this.createUser({ username: "alice" });
    const guild = this.createGuild({ name: "Fake Guild", ownerId: owner.id });
    const channel = this.createChannel({ guildId: guild.id, name: "general" });
    this.addMember({ guildId: guild.id, userId: user.id });
    return { guildId: guild.id, channelId: channel.id, userId: user.id, ownerId: owner.id };
  }

  private putMember(guildId: string, userId: string, roles: string[], nick: string | null): void {
    const guild = this.world.guild(guildId);
    const existing = guild.members.get(userId);
    const member: MemberRecord = {
      userId,
      roles: [...roles],
      nick,
      joinedAt: existing?.joinedAt ?? new Date().toISOString(),
    };
    guild.members.set(userId, member);
  }

  private dispatchGuild(
    t: string,
    build: () => Json,
    perSession: ((s: { intents: number }) => Json) | null,
    guildId?: string,
  ): void {
    if (guildId && !this.world.guild(guildId).members.has(this.botId)) return;
    if (this.gateway.sessions.size === 0) return;
    this.gateway.dispatch(t, build(), (s) =>
      s.intents & Intents.Guilds ? (perSession ? perSession(s) : build()) : null,
    );
  }

  private fetch(req: Request, server: Server<SocketData>): Response | Promise<Response> | undefined {
    const url = new URL(req.url);
    if (url.pathname === "/gateway" || url.pathname === "/resume-gateway") {
      if (this.outage) return jsonResponse(503, { message: "503: Service Unavailable", code: 0 });
      if (server.upgrade(req, { data: { connectionId: this.gateway.allocateConnectionId(), path: url.pathname } }))
        return undefined;
      return jsonResponse(400, { message: "Expected a WebSocket upgrade", code: 0 });
    }
    const api = /^\/api(?:\/v\d+)?(\/.*)$/.exec(url.pathname);
    if (api) return this.handleRest(req, api[1]!, url);
    const attachment = /^\/attachments\/(\d+)\//.exec(url.pathname);
    const file = attachment ? this.services.messages.files.get(attachment[1]!) : undefined;
    if (file) return new Response(file.bytes, { headers: { "content-type": file.contentType } });
    return jsonResponse(404, { message: "404: Not Found", code: 0 });
  }

  private async handleRest(req: Request, rawPath: string, url: URL): Promise<Response> {
    const method = req.method.toUpperCase();
    const path = rawPath.split("/").map(safeDecode).join("/");
    const query = Object.fromEntries(url.searchParams);
    const headers: Record<string, string> = {};
    req.headers.forEach((value, key) => (headers[key] = value));
    const authorized = headers.authorization === `Bot ${this.token}`;
    if (headers.authorization) headers.authorization = authorized ? "Bot [redacted]" : "[redacted: wrong token]";
    let status = 200;
    let body: any = null;
    let extraHeaders: Record<string, string> = {};
    let parsed: { body: any; files: StoredFile[] } = { body: null, files: [] };
    let rateLimited = false;
    let deliberate = false;
    try {
      parsed = await this.parseBody(req);
      const armed = this.rateLimiter.check(method, path);
      const bucket = this.outage || armed ? null : this.rateLimiter.take(method, path);
      const limited = armed ?? bucket?.limited ?? null;
      deliberate = armed !== null;
      if (bucket) extraHeaders = bucket.headers;
      const match = limited || this.outage ? null : this.router.match(method, path);
      const malformed = match && "route" in match ? findMalformedUtf16(parsed.body) : null;
      if (this.outage) {
        status = 503;
        body = { message: "503: Service Unavailable", code: 0 };
      } else if (malformed) {
        // Bodies are JSON in UTF-8; a lone surrogate cannot be encoded and the request is refused.
        throw new DiscordHttpError(
          400,
          50035,
          "Invalid Form Body",
          nestError(
            malformed,
            "STRING_TYPE_INVALID_UNICODE",
            "Invalid unicode: the string contains a lone UTF-16 surrogate.",
          ),
        );
      } else if (limited) {
        rateLimited = true;
        status = 429;
        body = limited.body;
        extraHeaders = limited.headers;
      } else if (!match) {
        status = 404;
        body = { message: "404: Not Found", code: 0 };
      } else if ("allowed" in match) {
        status = 405;
        body = { message: "405: Method Not Allowed", code: 0 };
      } else if (match.route.auth && !authorized) {
        status = 401;
        body = { message: "401: Unauthorized", code: 0 };
      } else {
        const result = await match.route.handler({
          method,
          path,
          params: match.params,
          query,
          body: parsed.body,
          files: parsed.files,
        });
        status = result.status;
        body = result.body ?? null;
      }
    } catch (error) {
      if (error instanceof DiscordHttpError) {
        status = error.status;
        body = error.toBody();
        deliberate = error.switched;
        extraHeaders = { ...extraHeaders };
      } else {
        status = 500;
        body = {
          message: `500: Internal Server Error (fake-discord: ${error instanceof Error ? error.message : String(error)})`,
          code: 0,
        };
        console.error(`fake-discord: ${method} ${path} failed`, error);
      }
    }
    this.recordCall(
      {
        method,
        path,
        query,
        body: parsed.body,
        files: parsed.files.map((f) => ({ name: f.filename, size: f.bytes.byteLength, contentType: f.contentType })),
        headers,
        status,
        response: body,
        rateLimited,
      },
      deliberate,
    );
    return jsonResponse(status, body, extraHeaders);
  }

  private consumeExpectation(call: RecordedCall): boolean {
    const code = call.response?.code;
    const hit = this.expectations.find(
      (e) =>
        e.left > 0 &&
        (e.method === undefined || e.method.toUpperCase() === call.method) &&
        (e.status === undefined || e.status === call.status) &&
        (e.code === undefined || e.code === code) &&
        (e.path === undefined || (typeof e.path === "string" ? e.path === call.path : e.path.test(call.path))),
    );
    if (!hit) return false;
    hit.left--;
    return true;
  }

  private async parseBody(req: Request): Promise<{ body: any; files: StoredFile[] }> {
    if (req.method === "GET" || req.method === "HEAD") return { body: null, files: [] };
    const type = req.headers.get("content-type") ?? "";
    if (type.startsWith("multipart/form-data")) {
      const form = await req.formData();
      let body: any = null;
      const files: StoredFile[] = [];
      for (const [key, value] of form.entries()) {
        if (key === "payload_json" && typeof value === "string") body = JSON.parse(value);
        else if (typeof value !== "string") {
          files.push({
            id: this.world.ids.next(),
            filename: value.name || key,
            contentType: value.type || "application/octet-stream",
            bytes: new Uint8Array(await value.arrayBuffer()),
          });
        }
      }
      return { body, files };
    }
    const text = await req.text();
    if (!text) return { body: null, files: [] };
    try {
      return { body: JSON.parse(text), files: [] };
    } catch {
      throw new DiscordHttpError(400, 50109, "The request body contains invalid JSON.");
    }
  }

  private recordCall(call: Omit<RecordedCall, "index" | "time">, deliberate: boolean): void {
    const recorded: RecordedCall = { index: this.calls.length, time: Date.now(), ...call };
    this.calls.push(recorded);
    // A 429 is the rate limit speaking, not a malformed request: clients wait and retry (see `calls[].rateLimited`).
    if (
      recorded.status >= 400 &&
      recorded.status < 500 &&
      recorded.status !== 429 &&
      !deliberate &&
      !this.consumeExpectation(recorded)
    )
      this.unexpectedErrors.push(recorded);
    notify(this.callWaiters, recorded);
  }

  private recordFrame(frame: Omit<RecordedFrame, "index" | "time">): void {
    const recorded: RecordedFrame = { index: this.frames.length, time: Date.now(), ...frame };
    this.frames.push(recorded);
    notify(this.frameWaiters, recorded);
  }

  private waitIn<T>(
    history: T[],
    waiters: Set<Waiter<T>>,
    test: (item: T) => boolean,
    timeoutMs: number,
    describe: () => string,
  ): Promise<T> {
    const found = history.find(test);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const waiter: Waiter<T> = {
        test,
        resolve: (item) => {
          clearTimeout(timer);
          resolve(item);
        },
      };
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`fake-discord: ${describe()}`));
      }, timeoutMs);
      waiters.add(waiter);
    });
  }
}

function notify<T>(waiters: Set<Waiter<T>>, item: T): void {
  for (const waiter of [...waiters]) {
    if (waiter.test(item)) {
      waiters.delete(waiter);
      waiter.resolve(item);
    }
  }
}

function nestError(field: string, code: string, message: string): Json {
  const errors: Json = {};
  let cursor = errors;
  const parts = field.split(".");
  parts.forEach((part, i) => {
    if (i === parts.length - 1) cursor[part] = { _errors: [{ code, message }] };
    else cursor = cursor[part] = {};
  });
  return errors;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Creates the fake world and starts serving REST + gateway on 127.0.0.1 (free port). */
export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  return new FakeDiscord(options).listen();
}

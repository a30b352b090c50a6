import { DiscordHttpError, invalidFormBody, unknownChannel, unknownMessage } from "./http.ts";
import { noContent, ok, type RouteRequest, type Router } from "./router.ts";
import type { Services } from "./services.ts";
import { createThread } from "./threads.ts";
import { Intents, type Json } from "./types.ts";
import { ATTACH_FILES, isThread } from "./world.ts";

/** Channels, messages, typing, reactions, threads, DMs. */
export function registerChannelRoutes(router: Router, services: Services): void {
  const { world, messages, gateway } = services;
  const botId = services.config.botId;

  /** A channel the bot can see (404 if unknown, 403 if the bot is not in its guild). */
  const visibleChannel = (id: string): Json => {
    const channel = world.channels.get(id);
    if (!channel) throw unknownChannel();
    if (channel.guild_id && !world.guilds.get(channel.guild_id)?.members.has(botId))
      throw new DiscordHttpError(403, 50001, "Missing Access");
    return channel;
  };
  const messageIn = (channelId: string, messageId: string): Json => {
    visibleChannel(channelId);
    const message = world.findMessage(messageId);
    if (!message || message.channel_id !== channelId) throw unknownMessage();
    return message;
  };

  router.add("GET", "/channels/:channelId", (req) => ok(world.apiChannel(visibleChannel(req.params.channelId!).id)));

  router.add("PATCH", "/channels/:channelId", (req) => {
    const channel = visibleChannel(req.params.channelId!);
    const body = req.body ?? {};
    for (const key of ["name", "topic", "nsfw", "rate_limit_per_user", "position", "parent_id"])
      if (key in body) channel[key] = body[key];
    if (isThread(channel.type)) {
      for (const key of ["archived", "locked", "auto_archive_duration", "invitable"])
        if (key in body) channel.thread_metadata[key] = body[key];
      if ("archived" in body) channel.thread_metadata.archive_timestamp = new Date().toISOString();
    }
    const payload = world.apiChannel(channel.id);
    const event = isThread(channel.type) ? "THREAD_UPDATE" : "CHANNEL_UPDATE";
    if (channel.guild_id) gateway.dispatch(event, payload, (s) => (s.intents & Intents.Guilds ? payload : null));
    return ok(payload);
  });

  router.add("DELETE", "/channels/:channelId", (req) => {
    const channel = visibleChannel(req.params.channelId!);
    const payload = world.apiChannel(channel.id);
    world.channels.delete(channel.id);
    if (channel.guild_id) {
      const guild = world.guild(channel.guild_id);
      guild.channelIds = guild.channelIds.filter((id) => id !== channel.id);
      const event = isThread(channel.type) ? "THREAD_DELETE" : "CHANNEL_DELETE";
      gateway.dispatch(event, payload, (s) => (s.intents & Intents.Guilds ? payload : null));
    }
    return ok(payload);
  });

  router.add("GET", "/channels/:channelId/messages", (req) => {
    const channel = visibleChannel(req.params.channelId!);
    const limit = Math.min(Math.max(Number(req.query.limit ?? 50), 1), 100);
    let list = world.messagesOf(channel.id).filter((m) => !(m.flags & 64));
    const { before, after, around } = req.query;
    if (before) list = list.filter((m) => BigInt(m.id) < BigInt(before));
    if (after) list = list.filter((m) => BigInt(m.id) > BigInt(after)).slice(0, limit);
    if (around) {
      const index = list.findIndex((m) => BigInt(m.id) >= BigInt(around));
      const start = Math.max(0, index - Math.floor(limit / 2));
      list = list.slice(start, start + limit);
    }
    // Discord returns newest first.
    return ok(
      list
        .slice(-limit)
        .reverse()
        .map((m) => structuredClone(m)),
    );
  });

  /**
   * Switchable refusals: a user who closed DMs ("Cannot send messages to this user", 50007) and a
   * channel where the bot lacks Send Messages / Create Threads ("Missing Permissions", 50013).
   * https://docs.discord.com/developers/topics/opcodes-and-status-codes#json
   */
  const assertCanPost = (channel: Json): void => {
    if (channel.type === 1 && (channel.recipient_ids as string[]).some((u) => world.dmsClosed.has(u)))
      throw new DiscordHttpError(403, 50007, "Cannot send messages to this user").asSwitched();
    const parent = channel.parent_id as string | undefined;
    if (world.deniedChannels.has(channel.id) || (parent && isThread(channel.type) && world.deniedChannels.has(parent)))
      throw new DiscordHttpError(403, 50013, "Missing Permissions").asSwitched();
  };

  /**
   * Uploading a file needs ATTACH_FILES in the channel (the permissions table:
   * https://docs.discord.com/developers/topics/permissions#permissions-bitwise-permission-flags);
   * Discord answers 403 "Missing Permissions" (50013,
   * https://docs.discord.com/developers/topics/opcodes-and-status-codes#json) and posts nothing.
   */
  const assertCanAttach = (channelId: string, files: readonly unknown[] | undefined): void => {
    if (files?.length && !(world.channelPermissions(channelId, botId) & ATTACH_FILES))
      throw new DiscordHttpError(403, 50013, "Missing Permissions").asSwitched();
  };

  router.add("POST", "/channels/:channelId/messages", (req) => {
    const channel = visibleChannel(req.params.channelId!);
    assertCanPost(channel);
    assertCanAttach(channel.id, req.files);
    if (channel.thread_metadata?.archived) channel.thread_metadata.archived = false;
    return ok(messages.create({ channelId: channel.id, authorId: botId, body: req.body ?? {}, files: req.files }));
  });

  router.add("GET", "/channels/:channelId/messages/:messageId", (req) =>
    ok(structuredClone(messageIn(req.params.channelId!, req.params.messageId!))),
  );

  router.add("PATCH", "/channels/:channelId/messages/:messageId", (req) => {
    const message = messageIn(req.params.channelId!, req.params.messageId!);
    messages.assertEditable(message.id);
    if (message.author.id !== botId) {
      const onlyFlags = Object.keys(req.body ?? {}).every((k) => k === "flags");
      if (!onlyFlags) throw new DiscordHttpError(403, 50005, "Cannot edit a message authored by another user");
    }
    assertCanAttach(req.params.channelId!, req.files);
    return ok(messages.edit(message.id, req.body ?? {}, req.files));
  });

  router.add("DELETE", "/channels/:channelId/messages/:messageId", (req) => {
    messages.delete(messageIn(req.params.channelId!, req.params.messageId!).id);
    return noContent();
  });

  router.add("POST", "/channels/:channelId/typing", (req) => {
    assertCanPost(visibleChannel(req.params.channelId!));
    return noContent();
  });

  const reaction = (add: boolean) => (req: RouteRequest) => {
    const message = messageIn(req.params.channelId!, req.params.messageId!);
    const emoji = req.params.emoji!;
    const [name, id] = emoji.includes(":") ? emoji.split(":") : [emoji, null];
    const reactions: Json[] = (message.reactions ??= []);
    let entry = reactions.find((r) => r.emoji.name === name && (r.emoji.id ?? null) === (id ?? null));
    if (add) {
      if (!entry)
        reactions.push(
          (entry = {
            count: 0,
            me: false,
            emoji: { id: id ?? null, name },
            count_details: { burst: 0, normal: 0 },
            burst_colors: [],
            me_burst: false,
            burst_count: 0,
          }),
        );
      if (!entry.me) {
        entry.me = true;
        entry.count++;
      }
    } else if (entry?.me) {
      entry.me = false;
      entry.count--;
      if (entry.count === 0) reactions.splice(reactions.indexOf(entry), 1);
    }
    return noContent();
  };
  router.add("PUT", "/channels/:channelId/messages/:messageId/reactions/:emoji/@me", reaction(true));
  router.add("DELETE", "/channels/:channelId/messages/:messageId/reactions/:emoji/@me", reaction(false));

  router.add("POST", "/channels/:channelId/messages/:messageId/threads", (req) => {
    messageIn(req.params.channelId!, req.params.messageId!);
    assertCanPost(world.channel(req.params.channelId!));
    const body = req.body ?? {};
    const thread = createThread(services, {
      parentId: req.params.channelId!,
      messageId: req.params.messageId!,
      name: body.name,
      ownerId: botId,
      autoArchiveDuration: body.auto_archive_duration,
    });
    return { status: 201, body: thread };
  });

  router.add("POST", "/channels/:channelId/threads", (req) => {
    const parent = visibleChannel(req.params.channelId!);
    assertCanPost(parent);
    const body = req.body ?? {};
    const thread = createThread(services, {
      parentId: parent.id,
      name: body.name,
      ownerId: botId,
      type: body.type,
      autoArchiveDuration: body.auto_archive_duration,
    });
    if (parent.type === 15) {
      if (!body.message) throw invalidFormBody("message", "BASE_TYPE_REQUIRED", "This field is required");
      assertCanAttach(parent.id, req.files);
      const starter = messages.create({
        channelId: thread.id,
        authorId: botId,
        body: body.message,
        files: req.files,
        extra: { id: thread.id },
      });
      return { status: 201, body: { ...thread, message: starter } };
    }
    return { status: 201, body: thread };
  });

  router.add("PUT", "/channels/:channelId/thread-members/@me", (req) => {
    const channel = visibleChannel(req.params.channelId!);
    if (!isThread(channel.type)) throw new DiscordHttpError(400, 50024, "Cannot execute action on this channel type");
    return noContent();
  });

  router.add("POST", "/users/@me/channels", (req) => {
    const recipient = req.body?.recipient_id;
    if (!recipient || !world.users.has(recipient))
      throw invalidFormBody("recipient_id", "NUMBER_TYPE_COERCE", `Value "${recipient}" is not snowflake.`);
    return ok(world.apiChannel(world.dmChannel(recipient).id));
  });
}

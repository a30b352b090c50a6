import { DiscordHttpError, invalidFormBody, unknownMessage } from "./http.ts";
import { MessageFlags } from "./messages.ts";
import type { Services } from "./services.ts";
import { ChannelType, Intents, type Json } from "./types.ts";
import { isThread } from "./world.ts";

export interface ThreadInput {
  parentId: string;
  name: string;
  ownerId: string;
  type?: number;
  /** Create the thread from this message (thread id = message id, like Discord). */
  messageId?: string;
  autoArchiveDuration?: number;
}

/** Creates a thread channel, links it to its starter message and dispatches THREAD_CREATE. */
export function createThread(services: Services, input: ThreadInput): Json {
  const { world } = services;
  const parent = world.channel(input.parentId);
  if (isThread(parent.type)) throw new DiscordHttpError(400, 50024, "Cannot execute action on this channel type");
  if (![ChannelType.GuildText, ChannelType.GuildAnnouncement, ChannelType.GuildForum].includes(parent.type)) {
    throw new DiscordHttpError(400, 50024, "Cannot execute action on this channel type");
  }
  // name: 1–100 characters (https://docs.discord.com/developers/resources/channel#start-thread-from-message).
  if (typeof input.name !== "string" || input.name.length < 1 || input.name.length > 100) {
    throw invalidFormBody("name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.");
  }
  let starter: Json | undefined;
  if (input.messageId) {
    starter = world.findMessage(input.messageId);
    if (!starter || starter.channel_id !== parent.id) throw unknownMessage();
    if (starter.thread) throw new DiscordHttpError(400, 160004, "A thread has already been created for this message");
  }
  const now = new Date().toISOString();
  const id = input.messageId ?? world.ids.next();
  const type =
    input.type ??
    (parent.type === ChannelType.GuildAnnouncement
      ? ChannelType.AnnouncementThread
      : input.messageId
        ? ChannelType.PublicThread
        : ChannelType.PrivateThread);
  const thread: Json = {
    id,
    type,
    guild_id: parent.guild_id,
    parent_id: parent.id,
    owner_id: input.ownerId,
    name: input.name,
    last_message_id: null,
    message_count: 0,
    total_message_sent: 0,
    member_count: 1,
    rate_limit_per_user: 0,
    flags: 0,
    thread_metadata: {
      archived: false,
      archive_timestamp: now,
      auto_archive_duration: input.autoArchiveDuration ?? 4320,
      locked: false,
      create_timestamp: now,
      ...(type === ChannelType.PrivateThread ? { invitable: true } : {}),
    },
    ...(input.ownerId === world.botId ? { member: { id, user_id: input.ownerId, join_timestamp: now, flags: 0 } } : {}),
  };
  world.channels.set(id, thread);
  world.channelMessages.set(id, []);
  world.guild(parent.guild_id).channelIds.push(id);
  if (starter) {
    starter.thread = structuredClone(thread);
    starter.flags |= MessageFlags.HasThread;
  }
  services.gateway.dispatch("THREAD_CREATE", { ...thread, newly_created: true }, (s) =>
    s.intents & Intents.Guilds ? { ...thread, newly_created: true } : null,
  );
  return structuredClone(thread);
}

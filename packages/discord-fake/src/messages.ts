import type { Gateway, GatewaySession } from "./gateway.ts";
import { DiscordHttpError, invalidFormBody, unknownChannel, unknownMessage } from "./http.ts";
import { ChannelType, Intents, type Json } from "./types.ts";
import { validateComponents, validateContent, validateEmbeds, validateFiles } from "./limits.ts";
import { resolveMentions, type Ping } from "./mentions.ts";
import { isTextLike, isThread, type World } from "./world.ts";

export const MessageFlags = {
  HasThread: 1 << 5,
  Ephemeral: 1 << 6,
  Loading: 1 << 7,
  SuppressEmbeds: 1 << 2,
  SuppressNotifications: 1 << 12,
  IsComponentsV2: 1 << 15,
} as const;
const EDITABLE_FLAGS = MessageFlags.SuppressEmbeds | MessageFlags.IsComponentsV2;
// https://docs.discord.com/developers/resources/message#create-message — "flags: only SUPPRESS_EMBEDS,
// SUPPRESS_NOTIFICATIONS and IS_COMPONENTS_V2 can be set"; EPHEMERAL exists only on interaction responses
// (https://docs.discord.com/developers/interactions/receiving-and-responding#interaction-response-object-messages).
const CREATABLE_FLAGS =
  MessageFlags.SuppressEmbeds | MessageFlags.SuppressNotifications | MessageFlags.IsComponentsV2 | (1 << 13);
const INTERACTION_FLAGS = CREATABLE_FLAGS | MessageFlags.Ephemeral;

export interface StoredFile {
  id: string;
  filename: string;
  contentType: string;
  bytes: Uint8Array;
}

export interface CreateMessageInput {
  channelId: string;
  authorId: string;
  body: Json;
  files?: StoredFile[];
  /** Extra fields (interaction_metadata, webhook_id, type …) merged into the message. */
  extra?: Json;
  /** Skip the empty-message check (deferred interaction placeholders). */
  allowEmpty?: boolean;
  /** An interaction response or follow-up: the only messages that may carry the EPHEMERAL flag. */
  interactionResponse?: boolean;
}

/** Creates, edits and deletes messages, keeps the world in sync and dispatches gateway events. */
export class MessageService {
  readonly files = new Map<string, StoredFile>();
  /** Messages the bot sent that notify people beyond plain text: @everyone/@here, roles, users. */
  readonly pings: Ping[] = [];

  constructor(
    private readonly world: World,
    private readonly gateway: Gateway,
    private readonly baseUrl: () => string,
  ) {}

  create(input: CreateMessageInput): Json {
    const channel = this.world.channels.get(input.channelId);
    if (!channel) throw unknownChannel();
    if (!isTextLike(channel.type)) throw new DiscordHttpError(400, 50008, "Cannot send messages in a non-text channel");
    const body = input.body ?? {};
    // An ephemeral interaction reply is shown only to the clicker, so a locked thread does not stop it.
    const ephemeralReply = input.interactionResponse && ((body.flags ?? 0) & MessageFlags.Ephemeral) !== 0;
    if (channel.thread_metadata?.locked && !ephemeralReply)
      throw new DiscordHttpError(403, 50083, "Thread is archived");
    validateBody(body, input.files ?? [], input.allowEmpty ?? false);
    const allowedFlags = input.interactionResponse ? INTERACTION_FLAGS : CREATABLE_FLAGS;
    if ((body.flags ?? 0) & ~allowedFlags)
      throw invalidFormBody("flags", "MESSAGE_FLAGS_INVALID", `Invalid message flags: ${body.flags}`);
    const guildId: string | undefined = channel.guild_id;
    const id = this.world.ids.next();
    const content = String(body.content ?? "");
    const mentions = resolveMentions(
      this.world,
      content,
      guildId,
      body.allowed_mentions,
      body.message_reference?.message_id,
    );
    const message: Json = {
      id,
      channel_id: channel.id,
      ...(guildId ? { guild_id: guildId } : {}),
      author: this.world.apiUser(input.authorId),
      content,
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      tts: Boolean(body.tts),
      mention_everyone: mentions.everyone,
      mentions: mentions.users,
      mention_roles: mentions.roles,
      mention_channels: [],
      attachments: this.attachments(body, input.files ?? []),
      embeds: body.embeds ?? [],
      reactions: [],
      pinned: false,
      type: 0,
      flags: (body.flags ?? 0) & INTERACTION_FLAGS,
      components: body.components ?? [],
      ...(body.nonce !== undefined ? { nonce: body.nonce } : {}),
      ...(body.poll ? { poll: body.poll } : {}),
    };
    if (isThread(channel.type)) message.position = channel.total_message_sent ?? 0;
    if (body.message_reference?.message_id) {
      const referenced = this.world.findMessage(body.message_reference.message_id);
      if (!referenced && body.message_reference.fail_if_not_exists !== false) {
        throw invalidFormBody("message_reference", "MESSAGE_REFERENCE_UNKNOWN_MESSAGE", "Unknown message");
      }
      message.type = 19;
      message.message_reference = {
        type: 0,
        message_id: body.message_reference.message_id,
        channel_id: channel.id,
        ...(guildId ? { guild_id: guildId } : {}),
      };
      message.referenced_message = referenced ? structuredClone(referenced) : null;
    }
    Object.assign(message, input.extra ?? {});
    this.world.addMessage(message);
    this.recordPing(message, input.authorId);
    if (!(message.flags & MessageFlags.Ephemeral)) this.dispatchMessage("MESSAGE_CREATE", message);
    return structuredClone(message);
  }

  edit(messageId: string, body: Json, files: StoredFile[] = []): Json {
    const message = this.world.findMessage(messageId);
    if (!message) throw unknownMessage();
    // Checked before anything changes: a rejected edit leaves the message as it was.
    if ("attachments" in body || files.length) validateFiles(files, this.keptIds(message, body).size);
    if ("content" in body) {
      const content = body.content === null ? "" : String(body.content);
      validateContent(content);
      message.content = content;
      const mentions = resolveMentions(this.world, content, message.guild_id, body.allowed_mentions, null);
      message.mentions = mentions.users;
      message.mention_roles = mentions.roles;
      message.mention_everyone = mentions.everyone;
    }
    if ("embeds" in body) {
      validateEmbeds(body.embeds ?? []);
      message.embeds = body.embeds ?? [];
    }
    if ("components" in body) {
      if (!(message.flags & MessageFlags.IsComponentsV2) && body.components) validateComponents(body.components);
      message.components = body.components ?? [];
    }
    if ("flags" in body && body.flags !== null) {
      message.flags = (message.flags & ~EDITABLE_FLAGS) | (body.flags & EDITABLE_FLAGS);
    }
    if ("attachments" in body || files.length) message.attachments = this.keptAttachments(message, body, files);
    if ("poll" in body) message.poll = body.poll;
    message.flags &= ~MessageFlags.Loading;
    message.edited_timestamp = new Date().toISOString();
    if ("content" in body) this.recordPing(message, message.author.id);
    if (!(message.flags & MessageFlags.Ephemeral)) this.dispatchMessage("MESSAGE_UPDATE", message);
    return structuredClone(message);
  }

  /**
   * A REST edit (channel or interaction webhook) of a message in an archived thread fails until the
   * thread is unarchived; sending a message unarchives it. https://docs.discord.com/developers/topics/threads
   * ("archived threads … can't be modified"), error 50083 in
   * https://docs.discord.com/developers/topics/opcodes-and-status-codes#json
   */
  assertEditable(messageId: string): void {
    const message = this.world.findMessage(messageId);
    const channel = message ? this.world.channels.get(message.channel_id) : undefined;
    if (channel?.thread_metadata?.archived) throw new DiscordHttpError(400, 50083, "Thread is archived");
  }

  delete(messageId: string): void {
    const message = this.world.removeMessage(messageId);
    if (!message) throw unknownMessage();
    if (message.flags & MessageFlags.Ephemeral) return;
    const payload = {
      id: message.id,
      channel_id: message.channel_id,
      ...(message.guild_id ? { guild_id: message.guild_id } : {}),
    };
    this.gateway.dispatch("MESSAGE_DELETE", payload, (s) => (hasMessageIntent(s, payload.guild_id) ? payload : null));
  }

  /** MESSAGE_CREATE/UPDATE with Discord's per-session rules: intents, DM channel_type, content redaction. */
  dispatchMessage(t: "MESSAGE_CREATE" | "MESSAGE_UPDATE", message: Json): void {
    const channel = this.world.channel(message.channel_id);
    const payload: Json = structuredClone(message);
    if (channel.type === ChannelType.DM) payload.channel_type = ChannelType.DM;
    else if (message.guild_id) {
      const member = this.world.apiMember(message.guild_id, message.author.id, false);
      if (member) payload.member = member;
    }
    this.gateway.dispatch(t, payload, (session) => {
      if (!hasMessageIntent(session, message.guild_id)) return null;
      if (session.intents & Intents.MessageContent || !this.needsContentIntent(message)) return payload;
      return { ...payload, content: "", embeds: [], attachments: [], components: [], poll: undefined };
    });
  }

  private recordPing(message: Json, authorId: string): void {
    if (authorId !== this.world.botId) return;
    if (!message.mention_everyone && !message.mention_roles.length && !message.mentions.length) return;
    this.pings.push({
      messageId: message.id,
      channelId: message.channel_id,
      everyone: message.mention_everyone,
      roles: [...message.mention_roles],
      users: message.mentions.map((u: Json) => u.id),
    });
  }

  private needsContentIntent(message: Json): boolean {
    if (!message.guild_id) return false;
    if (message.author.id === this.world.botId) return false;
    return !message.mentions.some((u: Json) => u.id === this.world.botId);
  }

  private attachments(body: Json, files: StoredFile[]): Json[] {
    return files.map((file, index) => {
      const meta = (body.attachments as Json[] | undefined)?.find((a) => String(a.id) === String(index));
      this.files.set(file.id, file);
      return this.apiAttachment(file, meta);
    });
  }

  /** Ids of the message's attachments an edit keeps (all when it names none). */
  private keptIds(message: Json, body: Json): Set<string> {
    const existing = new Set((message.attachments as Json[]).map((a) => String(a.id)));
    const named = ((body.attachments as Json[] | undefined) ?? message.attachments).map((a: Json) => String(a.id));
    return new Set(named.filter((id: string) => existing.has(id)));
  }

  private keptAttachments(message: Json, body: Json, files: StoredFile[]): Json[] {
    const keepIds = this.keptIds(message, body);
    const kept = (message.attachments as Json[]).filter((a) => keepIds.has(String(a.id)));
    return [...kept, ...this.attachments(body, files)];
  }

  private apiAttachment(file: StoredFile, meta: Json | undefined): Json {
    const url = `${this.baseUrl()}/attachments/${file.id}/${encodeURIComponent(file.filename)}`;
    return {
      id: file.id,
      filename: meta?.filename ?? file.filename,
      description: meta?.description,
      content_type: file.contentType,
      size: file.bytes.byteLength,
      url,
      proxy_url: url,
    };
  }
}

export function hasMessageIntent(session: GatewaySession, guildId: string | undefined): boolean {
  return (session.intents & (guildId ? Intents.GuildMessages : Intents.DirectMessages)) !== 0;
}

function validateBody(body: Json, files: StoredFile[], allowEmpty: boolean): void {
  const content = body.content === undefined || body.content === null ? "" : String(body.content);
  validateContent(content);
  validateEmbeds(body.embeds ?? []);
  validateFiles(files);
  const v2 = ((body.flags ?? 0) & MessageFlags.IsComponentsV2) !== 0;
  if (!v2 && body.components) validateComponents(body.components);
  const empty =
    !content &&
    !body.embeds?.length &&
    !body.components?.length &&
    !files.length &&
    !body.sticker_ids?.length &&
    !body.poll;
  if (empty && !allowEmpty) throw new DiscordHttpError(400, 50006, "Cannot send an empty message");
}

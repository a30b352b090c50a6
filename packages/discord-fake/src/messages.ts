import type { Gateway, GatewaySession } from "./gateway.ts";
import { DiscordHttpError, invalidFormBody, unknownChannel, unknownMessage } from "./http.ts";
import { ChannelType, Intents, type Json } from "./types.ts";
import { isTextLike, isThread, type World } from "./world.ts";

export const MessageFlags = { HasThread: 1 << 5, Ephemeral: 1 << 6, Loading: 1 << 7, SuppressEmbeds: 1 << 2, SuppressNotifications: 1 << 12, IsComponentsV2: 1 << 15 } as const;
const EDITABLE_FLAGS = MessageFlags.SuppressEmbeds | MessageFlags.IsComponentsV2;
const CREATABLE_FLAGS = MessageFlags.SuppressEmbeds | MessageFlags.SuppressNotifications | MessageFlags.IsComponentsV2 | MessageFlags.Ephemeral;

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
}

/** Creates, edits and deletes messages, keeps the world in sync and dispatches gateway events. */
export class MessageService {
  readonly files = new Map<string, StoredFile>();

  constructor(
    private readonly world: World,
    private readonly gateway: Gateway,
    private readonly baseUrl: () => string,
  ) {}

  create(input: CreateMessageInput): Json {
    const channel = this.world.channels.get(input.channelId);
    if (!channel) throw unknownChannel();
    if (!isTextLike(channel.type)) throw new DiscordHttpError(400, 50008, "Cannot send messages in a non-text channel");
    if (channel.thread_metadata?.locked) throw new DiscordHttpError(403, 50083, "Thread is archived");
    const body = input.body ?? {};
    validateContent(body, input.files ?? [], input.allowEmpty ?? false);
    const guildId: string | undefined = channel.guild_id;
    const id = this.world.ids.next();
    const content = String(body.content ?? "");
    const mentions = this.world.mentionsIn(content, guildId);
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
      flags: (body.flags ?? 0) & CREATABLE_FLAGS,
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
      message.message_reference = { type: 0, message_id: body.message_reference.message_id, channel_id: channel.id, ...(guildId ? { guild_id: guildId } : {}) };
      message.referenced_message = referenced ? structuredClone(referenced) : null;
    }
    Object.assign(message, input.extra ?? {});
    this.world.addMessage(message);
    if (!(message.flags & MessageFlags.Ephemeral)) this.dispatchMessage("MESSAGE_CREATE", message);
    return structuredClone(message);
  }

  edit(messageId: string, body: Json, files: StoredFile[] = []): Json {
    const message = this.world.findMessage(messageId);
    if (!message) throw unknownMessage();
    if ("content" in body) {
      const content = body.content === null ? "" : String(body.content);
      if (content.length > 2000) throw invalidFormBody("content", "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length.");
      message.content = content;
      const mentions = this.world.mentionsIn(content, message.guild_id);
      message.mentions = mentions.users;
      message.mention_roles = mentions.roles;
      message.mention_everyone = mentions.everyone;
    }
    if ("embeds" in body) {
      validateEmbeds(body.embeds ?? []);
      message.embeds = body.embeds ?? [];
    }
    if ("components" in body) message.components = body.components ?? [];
    if ("flags" in body && body.flags !== null) {
      message.flags = (message.flags & ~EDITABLE_FLAGS) | (body.flags & EDITABLE_FLAGS);
    }
    if ("attachments" in body || files.length) message.attachments = this.keptAttachments(message, body, files);
    if ("poll" in body) message.poll = body.poll;
    message.flags &= ~MessageFlags.Loading;
    message.edited_timestamp = new Date().toISOString();
    if (!(message.flags & MessageFlags.Ephemeral)) this.dispatchMessage("MESSAGE_UPDATE", message);
    return structuredClone(message);
  }

  delete(messageId: string): void {
    const message = this.world.removeMessage(messageId);
    if (!message) throw unknownMessage();
    if (message.flags & MessageFlags.Ephemeral) return;
    const payload = { id: message.id, channel_id: message.channel_id, ...(message.guild_id ? { guild_id: message.guild_id } : {}) };
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

  private keptAttachments(message: Json, body: Json, files: StoredFile[]): Json[] {
    const keepIds = new Set(((body.attachments as Json[] | undefined) ?? message.attachments).map((a: Json) => String(a.id)));
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

function validateContent(body: Json, files: StoredFile[], allowEmpty: boolean): void {
  const content = body.content === undefined || body.content === null ? "" : String(body.content);
  if (content.length > 2000) throw invalidFormBody("content", "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length.");
  validateEmbeds(body.embeds ?? []);
  const v2 = ((body.flags ?? 0) & MessageFlags.IsComponentsV2) !== 0;
  if (!v2 && (body.components?.length ?? 0) > 5) throw invalidFormBody("components", "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.");
  const empty = !content && !body.embeds?.length && !body.components?.length && !files.length && !body.sticker_ids?.length && !body.poll;
  if (empty && !allowEmpty) throw new DiscordHttpError(400, 50006, "Cannot send an empty message");
}

/** Discord's embed limits (per embed, and 6000 characters over all embeds of a message). */
export const EMBED_LIMITS = { title: 256, description: 4096, fields: 25, fieldName: 256, fieldValue: 1024, footer: 2048, author: 256, total: 6000 } as const;

function validateEmbeds(embeds: Json[]): void {
  if (embeds.length > 10) throw invalidFormBody("embeds", "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.");
  const tooLong = (field: string, max: number) => invalidFormBody(field, "BASE_TYPE_MAX_LENGTH", `Must be ${max} or fewer in length.`);
  const len = (v: unknown) => (typeof v === "string" ? v.length : 0);
  let total = 0;
  embeds.forEach((embed, i) => {
    const at = `embeds.${i}`;
    if (len(embed.title) > EMBED_LIMITS.title) throw tooLong(`${at}.title`, EMBED_LIMITS.title);
    if (len(embed.description) > EMBED_LIMITS.description) throw tooLong(`${at}.description`, EMBED_LIMITS.description);
    if (len(embed.footer?.text) > EMBED_LIMITS.footer) throw tooLong(`${at}.footer.text`, EMBED_LIMITS.footer);
    if (len(embed.author?.name) > EMBED_LIMITS.author) throw tooLong(`${at}.author.name`, EMBED_LIMITS.author);
    const fields: Json[] = embed.fields ?? [];
    if (fields.length > EMBED_LIMITS.fields) throw tooLong(`${at}.fields`, EMBED_LIMITS.fields);
    fields.forEach((f, j) => {
      if (!len(f.name)) throw invalidFormBody(`${at}.fields.${j}.name`, "BASE_TYPE_REQUIRED", "This field is required");
      if (!len(f.value)) throw invalidFormBody(`${at}.fields.${j}.value`, "BASE_TYPE_REQUIRED", "This field is required");
      if (len(f.name) > EMBED_LIMITS.fieldName) throw tooLong(`${at}.fields.${j}.name`, EMBED_LIMITS.fieldName);
      if (len(f.value) > EMBED_LIMITS.fieldValue) throw tooLong(`${at}.fields.${j}.value`, EMBED_LIMITS.fieldValue);
      total += len(f.name) + len(f.value);
    });
    total += len(embed.title) + len(embed.description) + len(embed.footer?.text) + len(embed.author?.name);
  });
  if (total > EMBED_LIMITS.total) throw invalidFormBody("embeds", "MAX_EMBED_SIZE_EXCEEDED", `Embed size exceeds maximum size of ${EMBED_LIMITS.total}`);
}

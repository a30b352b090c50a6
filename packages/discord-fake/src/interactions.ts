import type { Gateway } from "./gateway.ts";
import { DiscordHttpError, unknownInteraction, unknownMessage, unknownWebhook } from "./http.ts";
import { validateModal } from "./limits.ts";
import { MessageFlags, type MessageService, type StoredFile } from "./messages.ts";
import type { RouteResult } from "./router.ts";
import { randomToken } from "./snowflake.ts";
import type { Json } from "./types.ts";
import { ALL_PERMISSIONS, type World } from "./world.ts";

export const InteractionType = { ApplicationCommand: 2, MessageComponent: 3, Autocomplete: 4, ModalSubmit: 5 } as const;
export const CallbackType = {
  ChannelMessage: 4,
  DeferredChannelMessage: 5,
  DeferredUpdate: 6,
  UpdateMessage: 7,
  Autocomplete: 8,
  Modal: 9,
} as const;

/** One POST to the interaction callback endpoint. Only the first accepted one counts, like Discord. */
export interface InteractionCallback {
  type: number;
  data: Json | null;
  status: number;
  accepted: boolean;
  /** Discord's error message when not accepted (e.g. "Interaction has already been acknowledged."). */
  error: string | null;
  time: number;
  /** Milliseconds between dispatching INTERACTION_CREATE and this callback. */
  latencyMs: number;
}

export interface InteractionRecord {
  id: string;
  token: string;
  type: number;
  payload: Json;
  channelId: string;
  guildId: string | null;
  userId: string;
  createdAt: number;
  sourceMessageId: string | null;
  callbacks: InteractionCallback[];
  acknowledged: boolean;
  originalMessageId: string | null;
  followUpIds: string[];
  modal: Json | null;
  waiters: ((callback: InteractionCallback) => void)[];
}

/** Handle returned by clickButton/submitModal/runSlashCommand. */
export interface FakeInteraction {
  id: string;
  token: string;
  /** The INTERACTION_CREATE payload that was dispatched. */
  payload: Json;
  /** Resolves with the first callback attempt (rejects after `timeoutMs`, default 5000). */
  callback(timeoutMs?: number): Promise<InteractionCallback>;
  /** Every callback attempt so far, accepted or not. */
  readonly callbacks: InteractionCallback[];
  /** Current state of the original response message (after reply, deferReply + editReply, update …). */
  original(): Json | null;
  /** Current state of the follow-up messages. */
  followUps(): Json[];
  /** The modal shown in response (callback type 9), if any. */
  modal(): Json | null;
}

export interface InteractionTiming {
  /** Callback deadline after dispatch (Discord: 3 s). */
  ackTimeoutMs: number;
  /** How long the token works for webhook edits/follow-ups (Discord: 15 min). */
  tokenTtlMs: number;
}

/** Creates INTERACTION_CREATE payloads and serves the callback and interaction-webhook endpoints. */
export class InteractionService {
  readonly records = new Map<string, InteractionRecord>();
  private readonly byToken = new Map<string, InteractionRecord>();

  constructor(
    private readonly world: World,
    private readonly gateway: Gateway,
    private readonly messages: MessageService,
    private readonly applicationId: string,
    private readonly timing: InteractionTiming,
  ) {}

  /** Builds, stores and dispatches an interaction; returns the test-facing handle. */
  create(input: {
    type: number;
    channelId: string;
    userId: string;
    data: Json;
    message?: Json | null;
  }): FakeInteraction {
    const channel = this.world.channel(input.channelId);
    this.world.user(input.userId);
    const guildId: string | null = channel.guild_id ?? null;
    const id = this.world.ids.next();
    const token = `aW50ZXJhY3Rpb24.${id}.${randomToken(32)}`;
    const payload: Json = {
      id,
      application_id: this.applicationId,
      type: input.type,
      token,
      version: 1,
      data: input.data,
      channel_id: channel.id,
      channel: this.world.apiChannel(channel.id),
      app_permissions: guildId ? this.world.memberPermissions(guildId, this.world.botId) : ALL_PERMISSIONS,
      locale: "en-US",
      entitlements: [],
      authorizing_integration_owners: guildId ? { "0": guildId } : {},
      context: guildId ? 0 : 1,
      attachment_size_limit: 10 * 1024 * 1024,
    };
    if (guildId) {
      const member = this.world.apiMember(guildId, input.userId, true);
      if (!member)
        throw new Error(
          `fake-discord: user ${input.userId} is not a member of guild ${guildId}; call fake.addMember() first`,
        );
      payload.guild_id = guildId;
      payload.guild = { id: guildId, locale: "en-US", features: [] };
      payload.guild_locale = "en-US";
      payload.member = { ...member, permissions: this.world.memberPermissions(guildId, input.userId) };
    } else {
      payload.user = this.world.apiUser(input.userId);
    }
    if (input.message) payload.message = structuredClone(input.message);
    const record: InteractionRecord = {
      id,
      token,
      type: input.type,
      payload,
      channelId: channel.id,
      guildId,
      userId: input.userId,
      createdAt: Date.now(),
      sourceMessageId: input.message?.id ?? null,
      callbacks: [],
      acknowledged: false,
      originalMessageId: null,
      followUpIds: [],
      modal: null,
      waiters: [],
    };
    this.records.set(id, record);
    this.byToken.set(token, record);
    this.gateway.dispatch("INTERACTION_CREATE", payload);
    return this.handle(record);
  }

  /** The most recent modal with this custom id shown to `userId` (or to anyone). */
  findShownModal(customId: string, userId: string): InteractionRecord | undefined {
    const records = [...this.records.values()].reverse().filter((r) => r.modal?.custom_id === customId);
    return records.find((r) => r.userId === userId) ?? records[0];
  }

  handleCallback(id: string, token: string, body: Json, withResponse: boolean): RouteResult {
    const record = this.records.get(id);
    if (!record || record.token !== token) throw unknownInteraction();
    const type = Number(body?.type);
    const data = body?.data ?? null;
    const attempt = (status: number, error: string | null): InteractionCallback => {
      const callback: InteractionCallback = {
        type,
        data,
        status,
        accepted: status < 300,
        error,
        time: Date.now(),
        latencyMs: Date.now() - record.createdAt,
      };
      record.callbacks.push(callback);
      for (const waiter of record.waiters.splice(0)) waiter(callback);
      return callback;
    };
    // "You must send an initial response within 3 seconds of receiving the event. If the 3 second
    // deadline is exceeded, the token will be invalidated." Discord then answers 10062 and the user
    // sees "This interaction failed"
    // (https://docs.discord.com/developers/interactions/receiving-and-responding#responding-to-an-interaction).
    if (Date.now() - record.createdAt > this.timing.ackTimeoutMs) {
      attempt(404, "Unknown interaction");
      throw unknownInteraction();
    }
    if (record.acknowledged) {
      attempt(400, "Interaction has already been acknowledged.");
      throw new DiscordHttpError(400, 40060, "Interaction has already been acknowledged.");
    }
    try {
      this.applyCallback(record, type, data);
    } catch (error) {
      attempt(
        error instanceof DiscordHttpError ? error.status : 500,
        error instanceof Error ? error.message : String(error),
      );
      throw error;
    }
    record.acknowledged = true;
    attempt(withResponse ? 200 : 204, null);
    if (!withResponse) return { status: 204, body: null };
    const message = record.originalMessageId ? this.world.findMessage(record.originalMessageId) : undefined;
    return {
      status: 200,
      body: {
        interaction: {
          id: record.id,
          type: record.type,
          response_message_id: record.originalMessageId,
          response_message_loading: type === CallbackType.DeferredChannelMessage,
          response_message_ephemeral: Boolean((message?.flags ?? 0) & MessageFlags.Ephemeral),
        },
        resource: {
          type,
          ...(message && type !== CallbackType.DeferredUpdate ? { message: structuredClone(message) } : {}),
        },
      },
    };
  }

  private applyCallback(record: InteractionRecord, type: number, data: Json | null): void {
    const fromMessage = record.sourceMessageId !== null;
    switch (type) {
      case CallbackType.ChannelMessage:
        record.originalMessageId = this.messages.create({
          channelId: record.channelId,
          authorId: this.world.botId,
          body: data ?? {},
          extra: this.responseExtra(record),
          interactionResponse: true,
        }).id;
        return;
      case CallbackType.DeferredChannelMessage:
        record.originalMessageId = this.messages.create({
          channelId: record.channelId,
          authorId: this.world.botId,
          body: { content: "", flags: (data?.flags ?? 0) & MessageFlags.Ephemeral },
          extra: {
            ...this.responseExtra(record),
            flags: MessageFlags.Loading | ((data?.flags ?? 0) & MessageFlags.Ephemeral),
          },
          allowEmpty: true,
          interactionResponse: true,
        }).id;
        return;
      case CallbackType.DeferredUpdate:
      case CallbackType.UpdateMessage:
        if (!fromMessage)
          throw new DiscordHttpError(400, 40004, "Interaction callback type is only valid for message components");
        if (!this.world.findMessage(record.sourceMessageId!)) throw unknownMessage();
        record.originalMessageId = record.sourceMessageId;
        if (type === CallbackType.UpdateMessage) this.messages.edit(record.sourceMessageId!, data ?? {});
        return;
      case CallbackType.Modal:
        if (record.type === InteractionType.ModalSubmit || record.type === InteractionType.Autocomplete) {
          throw new DiscordHttpError(400, 50035, "Interaction callback type 9 is not valid for this interaction type");
        }
        validateModal(data);
        record.modal = structuredClone(data);
        return;
      case CallbackType.Autocomplete:
        if (record.type !== InteractionType.Autocomplete)
          throw new DiscordHttpError(400, 50035, "Interaction callback type 8 is only valid for autocomplete");
        validateAutocompleteChoices(data);
        return;
      default:
        throw new DiscordHttpError(400, 50035, `Invalid interaction callback type ${type}`);
    }
  }

  private responseExtra(record: InteractionRecord): Json {
    const data = record.payload.data ?? {};
    const user = this.world.apiUser(record.userId);
    return {
      type: record.type === InteractionType.ApplicationCommand ? 20 : 0,
      webhook_id: this.applicationId,
      application_id: this.applicationId,
      interaction: { id: record.id, type: record.type, name: data.name ?? data.custom_id ?? "", user },
      interaction_metadata: {
        id: record.id,
        type: record.type,
        user,
        authorizing_integration_owners: record.payload.authorizing_integration_owners,
        ...(data.name ? { name: data.name, command_type: data.type } : {}),
        ...(record.sourceMessageId ? { interacted_message_id: record.sourceMessageId } : {}),
      },
    };
  }

  private webhookRecord(applicationId: string, token: string): InteractionRecord {
    const record = this.byToken.get(token);
    if (!record || applicationId !== this.applicationId) throw unknownWebhook();
    if (Date.now() - record.createdAt > this.timing.tokenTtlMs)
      throw new DiscordHttpError(401, 50027, "Invalid Webhook Token");
    if (!record.acknowledged) throw unknownWebhook();
    return record;
  }

  private resolveMessageId(record: InteractionRecord, ref: string): string {
    if (ref === "@original") {
      if (!record.originalMessageId) throw unknownMessage();
      return record.originalMessageId;
    }
    if (!record.followUpIds.includes(ref) && ref !== record.originalMessageId) throw unknownMessage();
    return ref;
  }

  webhookGet(applicationId: string, token: string, ref: string): Json {
    const record = this.webhookRecord(applicationId, token);
    const message = this.world.findMessage(this.resolveMessageId(record, ref));
    if (!message) throw unknownMessage();
    return structuredClone(message);
  }

  webhookEdit(applicationId: string, token: string, ref: string, body: Json, files: StoredFile[]): Json {
    const record = this.webhookRecord(applicationId, token);
    const id = this.resolveMessageId(record, ref);
    this.messages.assertEditable(id);
    return this.messages.edit(id, body ?? {}, files);
  }

  webhookDelete(applicationId: string, token: string, ref: string): void {
    const record = this.webhookRecord(applicationId, token);
    this.messages.delete(this.resolveMessageId(record, ref));
  }

  /** POST /webhooks/:app/:token. Like Discord, the first follow-up after a deferred reply fills the placeholder. */
  followUp(applicationId: string, token: string, body: Json, files: StoredFile[]): Json {
    const record = this.webhookRecord(applicationId, token);
    const original = record.originalMessageId ? this.world.findMessage(record.originalMessageId) : undefined;
    if (original && original.flags & MessageFlags.Loading) return this.messages.edit(original.id, body ?? {}, files);
    const message = this.messages.create({
      channelId: record.channelId,
      authorId: this.world.botId,
      body: body ?? {},
      files,
      extra: { ...this.responseExtra(record), type: 0 },
      interactionResponse: true,
    });
    record.followUpIds.push(message.id);
    return message;
  }

  private handle(record: InteractionRecord): FakeInteraction {
    const world = this.world;
    return {
      id: record.id,
      token: record.token,
      payload: record.payload,
      callbacks: record.callbacks,
      callback: (timeoutMs = 5000) => {
        const first = record.callbacks[0];
        if (first) return Promise.resolve(first);
        return new Promise((resolve, reject) => {
          const timer = setTimeout(() => {
            record.waiters.splice(record.waiters.indexOf(done), 1);
            reject(
              new Error(
                `fake-discord: interaction ${record.id} (${describe(record)}) got no callback within ${timeoutMs} ms`,
              ),
            );
          }, timeoutMs);
          const done = (callback: InteractionCallback) => {
            clearTimeout(timer);
            resolve(callback);
          };
          record.waiters.push(done);
        });
      },
      original: () => {
        const message = record.originalMessageId ? world.findMessage(record.originalMessageId) : undefined;
        return message ? structuredClone(message) : null;
      },
      followUps: () =>
        record.followUpIds
          .map((id) => world.findMessage(id))
          .filter((m): m is Json => !!m)
          .map((m) => structuredClone(m)),
      modal: () => (record.modal ? structuredClone(record.modal) : null),
    };
  }
}

function describe(record: InteractionRecord): string {
  const data = record.payload.data ?? {};
  return data.name ? `command /${data.name}` : `custom_id ${data.custom_id}`;
}

// https://docs.discord.com/developers/interactions/receiving-and-responding#interaction-response-object-autocomplete
// — an autocomplete result carries at most 25 choices; each choice's name is 1–100 characters and a
// string value at most 100 (application-commands#application-command-object-application-command-option-choice-structure).
function validateAutocompleteChoices(data: Json | null): void {
  const choices = data?.choices;
  if (!Array.isArray(choices))
    throw new DiscordHttpError(400, 50035, "Invalid Form Body: data.choices must be a list of choices");
  if (choices.length > 25)
    throw new DiscordHttpError(400, 50035, "Invalid Form Body: data.choices must be 25 or fewer in length");
  choices.forEach((c: Json, j: number) => {
    if (typeof c?.name !== "string" || c.name.length < 1 || c.name.length > 100)
      throw new DiscordHttpError(400, 50035, `Invalid Form Body: data.choices.${j}.name must be 1–100 in length`);
    if (typeof c.value === "string" ? c.value.length > 100 : typeof c.value !== "number")
      throw new DiscordHttpError(400, 50035, `Invalid Form Body: data.choices.${j}.value is invalid`);
  });
}

import { InteractionType, type FakeInteraction } from "./interactions.ts";
import type { Services } from "./services.ts";
import { ChannelType, Intents, type Json } from "./types.ts";
import { isTextLike } from "./world.ts";

export interface SendUserMessageInput {
  /** Guild channel or thread to post in (requires `authorId`). */
  channelId?: string;
  /** Send as a DM from this user to the bot instead. */
  dmFrom?: string;
  authorId?: string;
  content: string;
  /** Prefix `<@bot>` to the content (if not already there) so the bot is mentioned. */
  mentionsBot?: boolean;
  /** Reply to this message id. */
  replyTo?: string;
  embeds?: Json[];
}

export interface ClickButtonInput {
  messageId: string;
  customId: string;
  userId: string;
  /** Click even if the message has no such enabled button (e.g. simulate a stale client). */
  force?: boolean;
}

export interface SelectMenuInput extends Omit<ClickButtonInput, "force"> {
  values: string[];
  force?: boolean;
}

export interface SubmitModalInput {
  customId: string;
  /** Text input custom_id → value. */
  fields: Record<string, string>;
  userId: string;
  /** Defaults to the channel where the modal was shown. */
  channelId?: string;
}

export interface RunSlashCommandInput {
  name: string;
  /** Either `{ optionName: value }` (types taken from the registered command) or raw API options. */
  options?: Record<string, string | number | boolean> | Json[];
  /** `"add"` or `["group", "add"]`. */
  subcommand?: string | [string, string];
  userId: string;
  channelId?: string;
  /** Use the guild's first text channel. */
  guildId?: string;
}

export interface RunAutocompleteInput {
  name: string;
  /** `"run"` or `["group", "run"]`. */
  subcommand?: string | [string, string];
  /** The string option being typed in (it must be registered with `autocomplete: true`). */
  focused: string;
  /** What the user has typed so far. */
  value: string;
  userId: string;
  channelId: string;
}

export function sendUserMessage(services: Services, input: SendUserMessageInput): Json {
  const { world, messages, config } = services;
  const authorId = input.dmFrom ?? input.authorId;
  if (!authorId) throw new Error("fake-discord: sendUserMessage needs authorId (or dmFrom for a DM)");
  let channelId = input.channelId;
  if (input.dmFrom) channelId = world.dmChannel(input.dmFrom).id;
  if (!channelId) throw new Error("fake-discord: sendUserMessage needs channelId or dmFrom");
  const channel = world.channel(channelId);
  if (channel.guild_id && !world.guild(channel.guild_id).members.has(authorId)) {
    throw new Error(
      `fake-discord: user ${authorId} is not a member of guild ${channel.guild_id}; call fake.addMember() first`,
    );
  }
  const mention = `<@${config.botId}>`;
  const content =
    input.mentionsBot && !input.content.includes(mention) && !input.content.includes(`<@!${config.botId}>`)
      ? `${mention} ${input.content}`
      : input.content;
  if (channel.thread_metadata?.archived) channel.thread_metadata.archived = false;
  return messages.create({
    channelId,
    authorId,
    body: {
      content,
      embeds: input.embeds,
      ...(input.replyTo ? { message_reference: { message_id: input.replyTo } } : {}),
    },
  });
}

/** Dispatches TYPING_START as if `userId` started typing. */
export function startTyping(services: Services, input: { channelId: string; userId: string }): void {
  const { world, gateway } = services;
  const channel = world.channel(input.channelId);
  const guildId: string | undefined = channel.guild_id;
  const payload: Json = { channel_id: channel.id, user_id: input.userId, timestamp: Math.floor(Date.now() / 1000) };
  if (guildId) {
    payload.guild_id = guildId;
    payload.member = world.apiMember(guildId, input.userId);
  }
  const intent = guildId ? Intents.GuildMessageTyping : Intents.DirectMessageTyping;
  gateway.dispatch("TYPING_START", payload, (s) => (s.intents & intent ? payload : null));
}

/** Every component in a (possibly nested, components-v2) component tree. */
function allComponents(components: Json[] | undefined): Json[] {
  const out: Json[] = [];
  for (const c of components ?? []) {
    out.push(c);
    out.push(...allComponents(c.components));
    if (c.accessory) out.push(c.accessory);
    if (c.component) out.push(c.component);
  }
  return out;
}

function findComponent(
  services: Services,
  messageId: string,
  customId: string,
  force: boolean,
): { message: Json; component: Json | undefined } {
  const message = services.world.findMessage(messageId);
  if (!message) throw new Error(`fake-discord: unknown message ${messageId}`);
  const components = allComponents(message.components).filter((c) => c.custom_id);
  const component = components.find((c) => c.custom_id === customId);
  if (!force) {
    if (!component) {
      const ids = components.map((c) => c.custom_id).join(", ") || "none";
      throw new Error(
        `fake-discord: message ${messageId} has no component with custom_id "${customId}" (it has: ${ids})`,
      );
    }
    if (component.disabled)
      throw new Error(`fake-discord: component "${customId}" on message ${messageId} is disabled`);
  }
  return { message, component };
}

export function clickButton(services: Services, input: ClickButtonInput): FakeInteraction {
  const { message, component } = findComponent(services, input.messageId, input.customId, input.force ?? false);
  if (component && component.type !== 2)
    throw new Error(
      `fake-discord: component "${input.customId}" is not a button (type ${component.type}); use selectMenu()`,
    );
  return services.interactions.create({
    type: InteractionType.MessageComponent,
    channelId: message.channel_id,
    userId: input.userId,
    data: {
      custom_id: input.customId,
      component_type: 2,
      ...(component?.id !== undefined ? { id: component.id } : {}),
    },
    message,
  });
}

export function selectMenu(services: Services, input: SelectMenuInput): FakeInteraction {
  const { message, component } = findComponent(services, input.messageId, input.customId, input.force ?? false);
  return services.interactions.create({
    type: InteractionType.MessageComponent,
    channelId: message.channel_id,
    userId: input.userId,
    data: { custom_id: input.customId, component_type: component?.type ?? 3, values: input.values },
    message,
  });
}

export function submitModal(services: Services, input: SubmitModalInput): FakeInteraction {
  const { world, interactions } = services;
  const shown = interactions.findShownModal(input.customId, input.userId);
  const channelId = input.channelId ?? shown?.channelId;
  if (!channelId)
    throw new Error(`fake-discord: no modal "${input.customId}" was shown; pass channelId to submit one anyway`);
  const components = shown
    ? fillModal(shown.modal!, input.fields)
    : Object.entries(input.fields).map(([custom_id, value]) => ({
        type: 1,
        components: [{ type: 4, custom_id, value }],
      }));
  const message = shown?.sourceMessageId ? world.findMessage(shown.sourceMessageId) : undefined;
  return interactions.create({
    type: InteractionType.ModalSubmit,
    channelId,
    userId: input.userId,
    data: { custom_id: input.customId, components },
    message: message ?? null,
  });
}

/** Answers a shown modal in its own layout (action rows or labels), checking field ids and required inputs. */
function fillModal(modal: Json, fields: Record<string, string>): Json[] {
  const inputs = allComponents(modal.components).filter((c) => c.type === 4);
  for (const key of Object.keys(fields)) {
    if (!inputs.some((c) => c.custom_id === key)) {
      throw new Error(
        `fake-discord: modal "${modal.custom_id}" has no text input "${key}" (it has: ${inputs.map((c) => c.custom_id).join(", ")})`,
      );
    }
  }
  for (const c of inputs) {
    const value = fields[c.custom_id] ?? "";
    if ((c.required ?? true) && !value)
      throw new Error(`fake-discord: modal "${modal.custom_id}" requires "${c.custom_id}"`);
    // The Discord client does not let a user type more than max_length (default 4000) or submit less than min_length.
    const max = c.max_length ?? 4000;
    if (value.length > max)
      throw new Error(
        `fake-discord: modal "${modal.custom_id}" input "${c.custom_id}" is ${value.length} characters, longer than its max_length ${max}`,
      );
    if (value && c.min_length !== undefined && value.length < c.min_length) {
      throw new Error(
        `fake-discord: modal "${modal.custom_id}" input "${c.custom_id}" is ${value.length} characters, shorter than its min_length ${c.min_length}`,
      );
    }
  }
  const answer = (c: Json) => ({
    type: 4,
    ...(c.id !== undefined ? { id: c.id } : {}),
    custom_id: c.custom_id,
    value: fields[c.custom_id] ?? "",
  });
  return (modal.components as Json[]).map((row) => {
    if (row.type === 18)
      return {
        type: 18,
        ...(row.id !== undefined ? { id: row.id } : {}),
        component: row.component?.type === 4 ? answer(row.component) : row.component,
      };
    if (row.type === 1)
      return {
        type: 1,
        ...(row.id !== undefined ? { id: row.id } : {}),
        components: (row.components as Json[]).map((c) => (c.type === 4 ? answer(c) : c)),
      };
    return { type: row.type, ...(row.id !== undefined ? { id: row.id } : {}) };
  });
}

export function runSlashCommand(services: Services, input: RunSlashCommandInput): FakeInteraction {
  const { world, commands } = services;
  let channelId = input.channelId;
  if (!channelId && input.guildId) {
    channelId = world.guildChannels(input.guildId, false).find((c) => c.type === ChannelType.GuildText)?.id;
    if (!channelId) throw new Error(`fake-discord: guild ${input.guildId} has no text channel`);
  }
  if (!channelId) throw new Error("fake-discord: runSlashCommand needs channelId or guildId");
  const channel = world.channel(channelId);
  if (!isTextLike(channel.type)) throw new Error(`fake-discord: channel ${channelId} is not text-based`);
  const guildId: string | null = channel.guild_id ?? null;
  const command = commands.find(input.name, guildId);
  if (!command) {
    const names =
      [...commands.list(null), ...(guildId ? commands.list(guildId) : [])].map((c) => `/${c.name}`).join(", ") ||
      "none";
    throw new Error(
      `fake-discord: no command /${input.name} is registered for ${guildId ? `guild ${guildId}` : "DMs"} (registered: ${names})`,
    );
  }
  const resolved: Json = {};
  let options: Json[];
  const path = typeof input.subcommand === "string" ? [input.subcommand] : (input.subcommand ?? []);
  let defs: Json[] | undefined = command.options;
  const wrappers: Json[] = [];
  for (const name of path) {
    const def = defs?.find((d) => d.name === name && (d.type === 1 || d.type === 2));
    if (!def) throw new Error(`fake-discord: /${input.name} has no subcommand "${name}"`);
    wrappers.push({ name, type: def.type });
    defs = def.options;
  }
  options = Array.isArray(input.options)
    ? input.options
    : toOptions(services, `/${[input.name, ...path].join(" ")}`, defs, input.options ?? {}, guildId, resolved);
  for (const wrapper of wrappers.reverse()) options = [{ ...wrapper, options }];
  return services.interactions.create({
    type: InteractionType.ApplicationCommand,
    channelId,
    userId: input.userId,
    data: {
      id: command.id,
      name: command.name,
      type: 1,
      ...(command.guild_id ? { guild_id: command.guild_id } : {}),
      ...(options.length ? { options } : {}),
      ...(Object.keys(resolved).length ? { resolved } : {}),
    },
  });
}

/**
 * A user typing in an autocomplete option: an APPLICATION_COMMAND_AUTOCOMPLETE interaction whose
 * focused option carries the partial text. The answer is the callback's `data.choices`.
 * https://docs.discord.com/developers/interactions/application-commands#autocomplete — only options
 * registered with `autocomplete: true` send it.
 */
export function runAutocomplete(services: Services, input: RunAutocompleteInput): FakeInteraction {
  const channel = services.world.channel(input.channelId);
  const command = services.commands.find(input.name, channel.guild_id ?? null);
  if (!command) throw new Error(`fake-discord: no command /${input.name} is registered here`);
  const path = typeof input.subcommand === "string" ? [input.subcommand] : (input.subcommand ?? []);
  let defs: Json[] | undefined = command.options;
  const wrappers: Json[] = [];
  for (const name of path) {
    const def = defs?.find((d) => d.name === name && (d.type === 1 || d.type === 2));
    if (!def) throw new Error(`fake-discord: /${input.name} has no subcommand "${name}"`);
    wrappers.push({ name, type: def.type });
    defs = def.options;
  }
  const def = defs?.find((d) => d.name === input.focused);
  if (!def?.autocomplete)
    throw new Error(`fake-discord: option "${input.focused}" of /${input.name} does not ask for autocomplete`);
  let options: Json[] = [{ name: input.focused, type: def.type, value: input.value, focused: true }];
  for (const wrapper of wrappers.reverse()) options = [{ ...wrapper, options }];
  return services.interactions.create({
    type: InteractionType.Autocomplete,
    channelId: input.channelId,
    userId: input.userId,
    data: { id: command.id, name: command.name, type: 1, options },
  });
}

function toOptions(
  services: Services,
  label: string,
  defs: Json[] | undefined,
  values: Record<string, unknown>,
  guildId: string | null,
  resolved: Json,
): Json[] {
  const { world } = services;
  for (const def of defs ?? []) {
    if (def.required && !(def.name in values)) throw new Error(`fake-discord: ${label} requires option "${def.name}"`);
  }
  return Object.entries(values).map(([name, value]) => {
    const def = defs?.find((d) => d.name === name);
    if (defs && !def)
      throw new Error(
        `fake-discord: ${label} has no option "${name}" (options: ${defs.map((d) => d.name).join(", ") || "none"})`,
      );
    const type: number =
      def?.type ??
      (typeof value === "boolean" ? 5 : typeof value === "number" ? (Number.isInteger(value) ? 4 : 10) : 3);
    const id = String(value);
    // https://docs.discord.com/developers/interactions/application-commands#application-command-object-application-command-option-structure
    // — a string option's min_length/max_length bound what the client lets a user send.
    if (type === 3 && def && typeof value === "string") {
      if (def.max_length !== undefined && value.length > def.max_length)
        throw new Error(`fake-discord: ${label} option "${name}" is longer than its max_length ${def.max_length}`);
      if (def.min_length !== undefined && value.length < def.min_length)
        throw new Error(`fake-discord: ${label} option "${name}" is shorter than its min_length ${def.min_length}`);
    }
    if (type === 6 || (type === 9 && world.users.has(id))) {
      (resolved.users ??= {})[id] = world.apiUser(id);
      const member = guildId ? world.apiMember(guildId, id, false) : null;
      if (member) (resolved.members ??= {})[id] = { ...member, permissions: world.memberPermissions(guildId!, id) };
    } else if (type === 7) {
      const c = world.apiChannel(id);
      (resolved.channels ??= {})[id] = {
        id,
        name: c.name,
        type: c.type,
        permissions: "0",
        ...(c.thread_metadata ? { thread_metadata: c.thread_metadata, parent_id: c.parent_id } : {}),
      };
    } else if (type === 8 || type === 9) {
      const role = guildId ? world.guild(guildId).roles.get(id) : undefined;
      if (!role) throw new Error(`fake-discord: ${label} option "${name}": unknown role ${id}`);
      (resolved.roles ??= {})[id] = world.apiRole(role);
    }
    return { name, type, value };
  });
}

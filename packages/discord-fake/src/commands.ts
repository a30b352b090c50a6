import { invalidFormBody, unknownCommand } from "./http.ts";
import type { Json } from "./types.ts";
import type { SnowflakeGenerator } from "./snowflake.ts";

const NAME = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;

/** Registered application commands, global (`guildId` null) and per guild. */
export class CommandStore {
  private readonly scopes = new Map<string, Map<string, Json>>();

  constructor(
    private readonly applicationId: string,
    private readonly ids: SnowflakeGenerator,
  ) {}

  list(guildId: string | null): Json[] {
    return [...this.scope(guildId).values()].map((c) => structuredClone(c));
  }

  get(guildId: string | null, id: string): Json {
    const command = this.scope(guildId).get(id);
    if (!command) throw unknownCommand();
    return structuredClone(command);
  }

  /** PUT: replaces the whole set; commands keep their id when the name (and type) is unchanged. */
  overwrite(guildId: string | null, bodies: Json[]): Json[] {
    if (!Array.isArray(bodies))
      throw invalidFormBody("_root", "LIST_TYPE_CONVERT", "Only iterables may be used in a ListType");
    const seen = new Set<string>();
    bodies.forEach((body, i) => {
      validateCommand(body, String(i));
      const key = `${body.type ?? 1}:${body.name}`;
      if (seen.has(key))
        throw invalidFormBody(
          `${i}.name`,
          "APPLICATION_COMMANDS_DUPLICATE_NAME",
          `Application command names must be unique`,
        );
      seen.add(key);
    });
    const previous = [...this.scope(guildId).values()];
    const next = new Map<string, Json>();
    for (const body of bodies) {
      const existing = previous.find((c) => c.name === body.name && c.type === (body.type ?? 1));
      const command = this.build(guildId, body, existing);
      next.set(command.id, command);
    }
    this.scopes.set(guildId ?? "global", next);
    return this.list(guildId);
  }

  /** POST: creates, or updates the command with the same name (Discord's upsert). */
  upsert(guildId: string | null, body: Json): { command: Json; created: boolean } {
    validateCommand(body, "");
    const existing = [...this.scope(guildId).values()].find((c) => c.name === body.name && c.type === (body.type ?? 1));
    const command = this.build(guildId, body, existing);
    this.scope(guildId).set(command.id, command);
    return { command: structuredClone(command), created: !existing };
  }

  patch(guildId: string | null, id: string, body: Json): Json {
    const existing = this.scope(guildId).get(id);
    if (!existing) throw unknownCommand();
    const merged = { ...existing, ...body };
    validateCommand(merged, "");
    const command = this.build(guildId, merged, existing);
    this.scope(guildId).set(id, command);
    return structuredClone(command);
  }

  delete(guildId: string | null, id: string): void {
    if (!this.scope(guildId).delete(id)) throw unknownCommand();
  }

  /** Finds a chat-input command by name: the guild's own first, then global. */
  find(name: string, guildId: string | null, type = 1): Json | undefined {
    const match = (c: Json) => c.name === name && c.type === type;
    // A global command shows only in the contexts it lists (all when unset; dm_permission false
    // hides it in DMs): https://docs.discord.com/developers/interactions/application-commands#interaction-contexts
    const context = guildId ? 0 : 1;
    const usable = (c: Json) =>
      match(c) && (c.contexts ? c.contexts.includes(context) : guildId !== null || c.dm_permission !== false);
    return (
      (guildId ? [...this.scope(guildId).values()].find(match) : undefined) ??
      [...this.scope(null).values()].find(usable)
    );
  }

  private scope(guildId: string | null): Map<string, Json> {
    const key = guildId ?? "global";
    let scope = this.scopes.get(key);
    if (!scope) this.scopes.set(key, (scope = new Map()));
    return scope;
  }

  private build(guildId: string | null, body: Json, existing: Json | undefined): Json {
    const type = body.type ?? 1;
    return {
      id: existing?.id ?? this.ids.next(),
      application_id: this.applicationId,
      version: this.ids.next(),
      type,
      name: body.name,
      name_localizations: body.name_localizations ?? null,
      description: type === 1 ? body.description : "",
      description_localizations: body.description_localizations ?? null,
      default_member_permissions: body.default_member_permissions ?? null,
      dm_permission: body.dm_permission ?? true,
      nsfw: body.nsfw ?? false,
      // Only global commands have contexts/integration types; a guild command exists only in its guild.
      integration_types: guildId ? [0] : (body.integration_types ?? [0]),
      contexts: guildId ? null : (body.contexts ?? null),
      ...(guildId ? { guild_id: guildId } : {}),
      ...(body.options?.length ? { options: body.options } : {}),
    };
  }
}

// https://docs.discord.com/developers/interactions/application-commands#application-command-object
// — naming: CHAT_INPUT command and option names match ^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$
// and use the lowercase variant of any letter; descriptions 1–100 characters; at most 25 options
// and 25 choices; required options must be listed before optional ones; a command has either
// subcommands/groups or plain options; contexts are 0 GUILD, 1 BOT_DM, 2 PRIVATE_CHANNEL and
// integration_types 0 GUILD_INSTALL, 1 USER_INSTALL (only for global commands).
function validateCommand(body: Json, at: string): void {
  const field = (name: string) => (at ? `${at}.${name}` : name);
  const type = body?.type ?? 1;
  if (
    typeof body?.name !== "string" ||
    !NAME.test(body.name) ||
    (type === 1 && body.name !== body.name.toLowerCase())
  ) {
    throw invalidFormBody(field("name"), "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid");
  }
  if (
    type === 1 &&
    (typeof body.description !== "string" || body.description.length < 1 || body.description.length > 100)
  ) {
    throw invalidFormBody(field("description"), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.");
  }
  for (const [key, allowed] of [
    ["contexts", [0, 1, 2]],
    ["integration_types", [0, 1]],
  ] as const) {
    const list = body[key];
    if (list === undefined || list === null) continue;
    if (
      !Array.isArray(list) ||
      list.length === 0 ||
      list.some((v: unknown) => !(allowed as readonly number[]).includes(v as number))
    ) {
      throw invalidFormBody(field(key), "ENUM_TYPE_COERCE", `${key} must be a non-empty list of ${allowed.join(", ")}`);
    }
  }
  validateOptions(body.options, field("options"), 0);
}

const SUBCOMMAND = 1;
const SUBCOMMAND_GROUP = 2;

function validateOptions(options: Json[] | undefined, at: string, depth: number): void {
  if (options === undefined || options === null) return;
  if (!Array.isArray(options))
    throw invalidFormBody(at, "LIST_TYPE_CONVERT", "Only iterables may be used in a ListType");
  if (options.length > 25) throw invalidFormBody(at, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.");
  const subs = options.filter((o) => o?.type === SUBCOMMAND || o?.type === SUBCOMMAND_GROUP);
  if (subs.length && subs.length !== options.length)
    throw invalidFormBody(
      at,
      "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID",
      "Sub-command and sub-command group option types are mutually exclusive to all other types",
    );
  const names = new Set<string>();
  let optionalSeen = false;
  options.forEach((o, i) => {
    const f = `${at}.${i}`;
    if (typeof o?.name !== "string" || !NAME.test(o.name) || o.name !== o.name.toLowerCase())
      throw invalidFormBody(`${f}.name`, "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid");
    if (names.has(o.name))
      throw invalidFormBody(
        `${f}.name`,
        "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS",
        "Option names must be unique",
      );
    names.add(o.name);
    if (typeof o.description !== "string" || o.description.length < 1 || o.description.length > 100)
      throw invalidFormBody(`${f}.description`, "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.");
    if (o.type === SUBCOMMAND_GROUP && depth > 0)
      throw invalidFormBody(
        `${f}.type`,
        "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID",
        "Sub-command groups cannot be nested",
      );
    if (o.type === SUBCOMMAND || o.type === SUBCOMMAND_GROUP) {
      if (o.required)
        throw invalidFormBody(
          `${f}.required`,
          "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
          "Sub-commands cannot be required",
        );
      validateOptions(o.options, `${f}.options`, depth + 1);
      return;
    }
    if (o.required && optionalSeen)
      throw invalidFormBody(
        `${f}.required`,
        "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
        "Required options must be placed before non-required options",
      );
    if (!o.required) optionalSeen = true;
    // https://docs.discord.com/developers/interactions/application-commands#application-command-object-application-command-option-structure:
    // min_length 0–6000 and max_length 1–6000, on string options only.
    for (const [k, lo] of [
      ["min_length", 0],
      ["max_length", 1],
    ] as const) {
      if (o[k] === undefined) continue;
      if (o.type !== 3)
        throw invalidFormBody(
          `${f}.${k}`,
          "APPLICATION_COMMAND_OPTION_INVALID",
          `${k} is only valid on string options`,
        );
      if (!Number.isInteger(o[k]) || o[k] < lo || o[k] > 6000)
        throw invalidFormBody(
          `${f}.${k}`,
          o[k] > 6000 ? "NUMBER_TYPE_MAX" : "NUMBER_TYPE_MIN",
          `Must be between ${lo} and 6000.`,
        );
    }
    // (the same option structure page): autocomplete only on string, integer and number options, and never with choices.
    if (o.autocomplete && (![3, 4, 10].includes(o.type) || (o.choices?.length ?? 0) > 0))
      throw invalidFormBody(
        `${f}.autocomplete`,
        "APPLICATION_COMMAND_OPTION_INVALID",
        "Autocomplete is only valid on string, integer and number options without choices",
      );
    if ((o.choices?.length ?? 0) > 25)
      throw invalidFormBody(`${f}.choices`, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.");
    (o.choices ?? []).forEach((c: Json, j: number) => {
      if (typeof c?.name !== "string" || c.name.length < 1 || c.name.length > 100)
        throw invalidFormBody(`${f}.choices.${j}.name`, "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.");
    });
  });
}

import { invalidFormBody, unknownCommand } from "./http.ts";
import type { Json } from "./types.ts";
import type { SnowflakeGenerator } from "./snowflake.ts";

const NAME = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;

/** Registered application commands, global (`guildId` null) and per guild. */
export class CommandStore {
  private readonly scopes = new Map<string, Map<string, Json>>();

  constructor(private readonly applicationId: string, private readonly ids: SnowflakeGenerator) {}

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
    if (!Array.isArray(bodies)) throw invalidFormBody("_root", "LIST_TYPE_CONVERT", "Only iterables may be used in a ListType");
    const seen = new Set<string>();
    bodies.forEach((body, i) => {
      validateCommand(body, String(i));
      const key = `${body.type ?? 1}:${body.name}`;
      if (seen.has(key)) throw invalidFormBody(`${i}.name`, "APPLICATION_COMMANDS_DUPLICATE_NAME", `Application command names must be unique`);
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
    return (guildId ? [...this.scope(guildId).values()].find(match) : undefined) ?? [...this.scope(null).values()].find(match);
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
      integration_types: body.integration_types ?? [0],
      contexts: body.contexts ?? null,
      ...(guildId ? { guild_id: guildId } : {}),
      ...(body.options?.length ? { options: body.options } : {}),
    };
  }
}

function validateCommand(body: Json, at: string): void {
  const field = (name: string) => (at ? `${at}.${name}` : name);
  const type = body?.type ?? 1;
  if (typeof body?.name !== "string" || !NAME.test(body.name) || (type === 1 && body.name !== body.name.toLowerCase())) {
    throw invalidFormBody(field("name"), "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid");
  }
  if (type === 1 && (typeof body.description !== "string" || body.description.length < 1 || body.description.length > 100)) {
    throw invalidFormBody(field("description"), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.");
  }
  if ((body.options?.length ?? 0) > 25) throw invalidFormBody(field("options"), "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.");
}

import { invalidFormBody } from "./http.ts";
import type { Json } from "./types.ts";
import type { World } from "./world.ts";

/** A bot message that notifies people: @everyone/@here, roles or users. */
export interface Ping {
  messageId: string;
  channelId: string;
  everyone: boolean;
  roles: string[];
  users: string[];
}

const PARSE_TYPES = new Set(["users", "roles", "everyone"]);

/**
 * Who a message mentions once `allowed_mentions` is applied: without it Discord parses every
 * mention in the content; with it only the listed types/ids notify anyone.
 * https://docs.discord.com/developers/resources/message#allowed-mentions-object
 */
export function resolveMentions(
  world: World,
  content: string,
  guildId: string | undefined,
  allowed: Json | undefined,
  repliedTo: string | null | undefined,
): { users: Json[]; roles: string[]; everyone: boolean } {
  const all = world.mentionsIn(content, guildId);
  if (allowed === undefined || allowed === null) return all;
  const parse: string[] = allowed.parse ?? [];
  for (const p of parse)
    if (!PARSE_TYPES.has(p))
      throw invalidFormBody("allowed_mentions.parse", "ENUM_TYPE_COERCE", `Value "${p}" is not a valid enum value.`);
  // "users"/"roles" in parse and an explicit list of the same kind are mutually exclusive.
  if (parse.includes("users") && allowed.users?.length)
    throw invalidFormBody(
      "allowed_mentions",
      "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
      'parse:["users"] and users: [ids...] are mutually exclusive.',
    );
  if (parse.includes("roles") && allowed.roles?.length)
    throw invalidFormBody(
      "allowed_mentions",
      "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
      'parse:["roles"] and roles: [ids...] are mutually exclusive.',
    );
  const userIds = new Set<string>(allowed.users ?? []);
  const roleIds = new Set<string>(allowed.roles ?? []);
  const users = all.users.filter((u) => parse.includes("users") || userIds.has(u.id));
  if (repliedTo && allowed.replied_user) {
    const author = world.findMessage(repliedTo)?.author;
    if (author && !users.some((u) => u.id === author.id)) users.push(author);
  }
  return {
    users,
    roles: all.roles.filter((r) => parse.includes("roles") || roleIds.has(r)),
    everyone: all.everyone && parse.includes("everyone"),
  };
}

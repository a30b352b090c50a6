import type { SurfaceCheck } from "../surface.ts";
import type { DiscordConfigSection } from "./surface-config.ts";

/** Discord bot tokens: base64(user id) . timestamp . hmac. */
const DISCORD_TOKEN_SHAPE = /^[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,}$/;

/** `openassistant doctor`'s checks of the `discord` section: the token's shape, who can talk and approve. */
export function checkDiscordSection(section: DiscordConfigSection | undefined): SurfaceCheck[] {
  const token = section?.token;
  if (!section || !token)
    return [{ name: "discord", level: "ok", detail: "not configured (the terminal is the surface)" }];
  return [
    DISCORD_TOKEN_SHAPE.test(token)
      ? { name: "discord", level: "ok", detail: "token has the shape of a bot token" }
      : {
          name: "discord",
          level: "fail",
          detail:
            "discord.token does not look like a bot token (three dot-separated parts); copy it again from the Developer Portal → Bot → Reset Token",
        },
    ...checkDiscordAccess(section),
  ];
}

/** Discord ids are snowflakes: 17–20 digits. "@ann" or "ann#1234" never match anyone. */
const SNOWFLAKE = /^\d{17,20}$/;
const ID_HINT =
  "Discord ids are numbers: enable Developer Mode (User Settings → Advanced), then right-click the user/role/server → Copy ID.";

interface DiscordAccessConfig {
  readonly token?: string;
  readonly allowedUsers: readonly string[];
  readonly allowedRoles: readonly string[];
  readonly allowedGuilds: readonly string[];
  readonly allowedChannels: readonly string[];
  readonly approvers?: readonly string[];
  readonly guildId?: string;
}

/** Who can talk to the bot and approve, and ids that cannot be Discord ids. */
function checkDiscordAccess(d: DiscordAccessConfig): SurfaceCheck[] {
  if (!d.token) return [];
  const out: SurfaceCheck[] = [];
  const bad: string[] = [];
  const lists: Array<[string, readonly string[]]> = [
    ["allowedUsers", d.allowedUsers],
    ["allowedRoles", d.allowedRoles],
    ["allowedGuilds", d.allowedGuilds],
    ["allowedChannels", d.allowedChannels],
    ["approvers", d.approvers ?? []],
    ["guildId", d.guildId === undefined ? [] : [d.guildId]],
  ];
  for (const [key, ids] of lists)
    for (const id of ids) if (!SNOWFLAKE.test(id)) bad.push(`discord.${key}: ${JSON.stringify(id)}`);
  if (bad.length)
    out.push({
      name: "discord ids",
      level: "fail",
      detail: `not Discord ids (they match nobody):\n${bad.join("\n")}\n${ID_HINT}`,
    });
  if (d.allowedUsers.length === 0 && d.allowedRoles.length === 0)
    out.push({
      name: "discord access",
      level: "fail",
      detail: `discord.allowedUsers and discord.allowedRoles are both empty, so nobody can talk to the bot (everyone gets a polite refusal). Add your user id to discord.allowedUsers. ${ID_HINT}`,
    });
  else {
    const approvers = d.approvers?.length ? d.approvers : d.allowedUsers;
    out.push(
      approvers.length
        ? {
            name: "discord access",
            level: "ok",
            detail: `${d.allowedUsers.length} user(s), ${d.allowedRoles.length} role(s) may talk; ${approvers.length} approver(s)`,
          }
        : {
            name: "discord access",
            level: "warn",
            detail:
              'nobody can approve (discord.approvers and discord.allowedUsers are empty): tools with approval "required" will always be denied. Add approvers.',
          },
    );
  }
  return out;
}

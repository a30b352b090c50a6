import { isApprover } from "../surfaces/discord/authorize.ts";
import type { DiscordSurfaceConfig } from "../surfaces/discord/surface-config.ts";
import type { GatewaySettings } from "../settings.ts";

/** `discord:123` and `123` name the same Discord user. */
export function normalizeOperator(id: string): string {
  const trimmed = id.trim();
  const m = /^discord:(\d+)$/.exec(trimmed);
  return m ? m[1]! : trimmed;
}

/**
 * Who may log in to the console and decide approvals there: `http.approvers` when configured,
 * else the Discord approver check (`discord.approvers`, else `discord.allowedUsers`). Roles need a
 * Discord member lookup, so in the console only user ids count. Fails closed: nobody when none is set.
 */
export function consoleApproverCheck(
  settings: Pick<GatewaySettings, "http" | "discord">,
): (operator: string) => boolean {
  const configured = settings.http?.approvers;
  if (configured?.length) {
    const allowed = new Set(configured.map(normalizeOperator));
    return (operator) => allowed.has(normalizeOperator(operator));
  }
  const discord = (settings.discord ?? {}) as DiscordSurfaceConfig;
  return (operator) => {
    const userId = normalizeOperator(operator);
    return userId !== "" && isApprover(discord, { userId, roleIds: [] });
  };
}

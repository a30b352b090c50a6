import type { Interaction, Message } from "discord.js";
import type { Actor } from "./authorize.ts";

function roleIdsOf(member: unknown): string[] {
  if (!member || typeof member !== "object") return [];
  const roles = (member as { roles?: unknown }).roles;
  if (Array.isArray(roles)) return roles.map(String);
  const cache = (roles as { cache?: Map<string, unknown> } | undefined)?.cache;
  return cache ? [...cache.keys()] : [];
}

function parentOf(channel: unknown): string | null {
  if (!channel || typeof channel !== "object") return null;
  const c = channel as { isThread?: () => boolean; parentId?: string | null };
  return typeof c.isThread === "function" && c.isThread() ? (c.parentId ?? null) : null;
}

export function actorOfMessage(message: Message): Actor {
  return {
    userId: message.author.id,
    roleIds: roleIdsOf(message.member),
    guildId: message.guildId ?? null,
    channelId: message.channelId,
    parentChannelId: parentOf(message.channel),
  };
}

export function actorOfInteraction(interaction: Interaction): Actor {
  return {
    userId: interaction.user.id,
    roleIds: roleIdsOf(interaction.member),
    guildId: interaction.guildId ?? null,
    channelId: interaction.channelId ?? "",
    parentChannelId: parentOf(interaction.channel),
  };
}

import { defineSurface } from "../surface.ts";
import { isApprover } from "./authorize.ts";
import { checkDiscordSection } from "./doctor.ts";
import { discordConfigSchema, type DiscordConfigSection, type DiscordSurfaceConfig } from "./surface-config.ts";

/** The Discord bot: runs when `discord.token` is set; discord.js loads only then. */
export const discordSurface = defineSurface<DiscordConfigSection>({
  id: "discord",
  configSchema: discordConfigSchema,
  configured: (section) => Boolean(section.token),
  credentials: (section) => (section.token ? [section.token] : []),
  operators: {
    // `discord:123` and `123` name the same Discord user.
    bareId: (id) => /^discord:(\d+)$/.exec(id)?.[1],
    // Roles need a Discord member lookup, so outside Discord only user ids count.
    isOperator: (section, userId) => isApprover(section as DiscordSurfaceConfig, { userId, roleIds: [] }),
    configKey: "discord.approvers",
  },
  doctor: checkDiscordSection,
  // Discord delivers each event to every session of a bot: two gateways connected would answer twice.
  oneAcrossGateways: true,
  async start({ gateway, section, env, out }) {
    const { startDiscordSurface } = await import("./index.ts");
    // OPENASSISTANT_DISCORD_API: REST base URL override (an offline fake Discord in tests); unset = Discord's.
    const restApi = env.OPENASSISTANT_DISCORD_API || undefined;
    const surface = await startDiscordSurface(gateway, section as DiscordSurfaceConfig, { restApi });
    out(`Discord: connected as ${surface.client.user.tag}. Press Ctrl-C to stop.`);
    return { done: new Promise<void>(() => {}), stop: () => surface.stop() }; // runs until a signal
  },
});

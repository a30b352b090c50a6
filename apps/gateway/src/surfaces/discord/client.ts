import { Client, GatewayIntentBits, Partials } from "discord.js";

export interface ClientOptions {
  /** REST base, e.g. `http://127.0.0.1:PORT/api` for the fake Discord. Default: Discord's. */
  readonly restApi?: string;
}

/**
 * A discord.js client with exactly what the surface needs: guild + DM messages with content
 * (Message Content is a privileged intent: enable it in the developer portal), and
 * `Partials.Channel` so DMs from uncached channels arrive. Mentions are off by default, so model
 * text can never ping @everyone or a role.
 */
export function createDiscordClient(opts: ClientOptions = {}): Client {
  return new Client({
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.MessageContent,
      GatewayIntentBits.DirectMessages,
    ],
    partials: [Partials.Channel],
    allowedMentions: { parse: [], repliedUser: false },
    ...(opts.restApi ? { rest: { api: opts.restApi } } : {}),
  });
}

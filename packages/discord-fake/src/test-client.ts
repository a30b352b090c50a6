// Test helper (not exported): a real discord.js client wired to a fake.
import { afterEach } from "bun:test";
import { Client, GatewayIntentBits, Partials, type ClientOptions } from "discord.js";
import { startFakeDiscord, type FakeDiscord, type FakeDiscordOptions } from "./fake.ts";

export const DEFAULT_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.MessageContent,
  GatewayIntentBits.DirectMessages,
];

/** discord.js waits 5 s between IDENTIFYs (max_concurrency 1); tests that re-identify skip that wait. */
export const noIdentifyWait: Partial<ClientOptions> = {
  ws: { buildIdentifyThrottler: async () => ({ waitForIdentify: async () => {} }) },
};

export function makeClient(
  fake: FakeDiscord,
  intents: number[] = DEFAULT_INTENTS,
  extra: Partial<ClientOptions> = {},
): Client {
  return new Client({ intents, partials: [Partials.Channel], rest: { api: fake.apiUrl }, ...extra });
}

/** Logs in and resolves once discord.js emits clientReady (login() resolves earlier). */
export async function loginReady(client: Client, token: string): Promise<void> {
  const ready = new Promise<void>((resolve) => client.once("clientReady", () => resolve()));
  await client.login(token);
  await ready;
}

/** Fresh fake + logged-in client; dispose with `close()`. */
export async function connected(
  options: FakeDiscordOptions = {},
  intents?: number[],
  clientOptions?: Partial<ClientOptions>,
) {
  const fake = await startFakeDiscord({ heartbeatIntervalMs: 200, ...options });
  const client = makeClient(fake, intents, clientOptions);
  await loginReady(client, fake.token);
  return {
    fake,
    client,
    seed: fake.defaults!,
    close: async () => {
      await client.destroy();
      await fake.close();
    },
  };
}

/** Resolves with the next emitted event matching `filter`. */
export function nextEvent<T extends unknown[]>(
  client: Client,
  event: string,
  filter: (...args: T) => boolean = () => true,
  timeoutMs = 3000,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off(event, listener);
      reject(new Error(`timed out waiting for client event ${event}`));
    }, timeoutMs);
    const listener = (...args: unknown[]) => {
      if (!filter(...(args as T))) return;
      clearTimeout(timer);
      client.off(event, listener);
      resolve(args as T);
    };
    client.on(event, listener);
  });
}

/**
 * `setup()` for a test file: like `connected()`, and everything it started is closed after each
 * test (call once at the top of the file).
 */
export function connectedPerTest() {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const fn of cleanups.splice(0)) await fn();
  });
  return async (...args: Parameters<typeof connected>) => {
    const env = await connected(...args);
    cleanups.push(env.close);
    return env;
  };
}

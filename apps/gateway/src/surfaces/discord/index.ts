import { Events, type Client, type Interaction, type Message } from "discord.js";
import { createApprovalCards } from "./approvals/approval-cards.ts";
import { createRefusalLimiter } from "./authorize.ts";
import { createDiscordClient } from "./client.ts";
import { classifyStartError } from "./discord-errors.ts";
import { createDmRoleResolver } from "./dm-roles.ts";
import { createConversations } from "./chat/conversations.ts";
import { deliverResumedAnswers } from "./chat/resumed-answers.ts";
import { createInteractionHandler } from "./commands/interactions.ts";
import type { SurfaceLife } from "./life.ts";
import { createRedactor } from "@openassistant/core/receipts";
import { createSurfaceLog, type SurfaceLog } from "./logger.ts";
import type { SurfacePort } from "../port.ts";
import { registerSlashCommands } from "./commands/slash-commands.ts";
import type { DiscordSurfaceConfig } from "./surface-config.ts";
import { createSurfaceStore } from "./sqlite/surface-store.ts";
import { createPgSurfaceStore } from "./postgres/surface-store.ts";

export type {
  SurfacePort,
  ToolReport,
  ToolListing,
  SurfaceTurnInput,
  SurfaceTurnOutcome,
} from "../port.ts";
export type { DiscordSurfaceConfig } from "./surface-config.ts";
export { surfacePort } from "../gateway-port.ts";
export { DISCORD_EXIT_CODES, DiscordStartError } from "./discord-errors.ts";
import { surfacePort } from "../gateway-port.ts";
import type { Gateway } from "../../gateway.ts";

export interface DiscordSurfaceOptions {
  /** REST base URL (tests: the fake Discord's `/api`). */
  readonly restApi?: string;
  /** Where log lines go (already redacted); default stderr. */
  readonly log?: SurfaceLog;
  /** Skip slash command registration (e.g. a second process on the same app). Default false. */
  readonly skipCommandRegistration?: boolean;
  /** How long stop() lets running turns finish before aborting them. Default 5 s. */
  readonly shutdownGraceMs?: number;
  /** Window of the per-user refusal limiter for unauthorized messages. Default 1 h. */
  readonly refusalWindowMs?: number;
  /** Milliseconds to wait for the gateway connection (READY). Default 30 s. */
  readonly readyTimeoutMs?: number;
}

export interface DiscordSurface {
  readonly client: Client<true>;
  /**
   * Stops acting at once (from this call on no click, modal, command or message decides or changes
   * anything; interactions get a private "shutting down"), finishes or aborts running turns, waits
   * for handlers still running, removes its listeners and disconnects for good. Idempotent.
   */
  stop(): Promise<void>;
}

/**
 * Connects the bot, closes approvals a previous process left pending (editing their cards),
 * registers slash commands, then serves chat and approval cards until stop().
 */
export async function startDiscordSurface(
  gateway: Gateway | SurfacePort,
  config: DiscordSurfaceConfig,
  opts: DiscordSurfaceOptions = {},
): Promise<DiscordSurface> {
  if (!config?.token)
    throw new Error(
      'discord: config.discord.token is empty. Set it (e.g. "${DISCORD_TOKEN}") or remove the discord section.',
    );
  const port = surfacePort(gateway);
  // The token joins the gateway's secrets (replies, cards and receipts are scrubbed of it too);
  // a port without a registry still keeps it out of the surface's own log lines.
  port.secrets?.add("surface-token", [config.token]);
  const tokenRedact = createRedactor([config.token]);
  const redact = (text: string) => tokenRedact(port.redact ? port.redact(text) : text);
  const sink = opts.log;
  const log = createSurfaceLog(redact, sink ? (line) => sink(line) : undefined);
  const client = createDiscordClient({ restApi: opts.restApi });
  const store = port.openStore({ sqlite: createSurfaceStore, postgres: createPgSurfaceStore });
  const limiter = createRefusalLimiter(opts.refusalWindowMs);

  const life: { open: boolean } & SurfaceLife = { open: true };
  const roles = createDmRoleResolver({ client, config, log });
  const conversations = createConversations({ client, gateway: port, store, config, limiter, roles, life, log });
  const cards = createApprovalCards({
    client,
    gateway: port,
    store,
    config,
    channelFor: conversations.channelFor,
    requesterIsApprover: conversations.requesterIsApprover,
    log,
  });
  const onInteraction = createInteractionHandler({ gateway: port, config, cards, conversations, roles, life, log });
  // Handlers still running when stop() begins are awaited before the client is destroyed.
  const handlers = new Set<Promise<unknown>>();
  const track = (work: Promise<unknown>) => {
    handlers.add(work);
    void work.finally(() => handlers.delete(work));
  };

  client.on(Events.Error, (e) => log("client error", e));
  // Connection trouble while running: discord.js reconnects and resumes by itself; say so once per outage.
  let connectionLost = false;
  client.on(Events.ShardDisconnect, (ev) => {
    if (!connectionLost)
      log(
        `Discord connection lost (close code ${ev.code}); reconnecting. Nothing is lost: messages and cards are sent once it is back.`,
      );
    connectionLost = true;
  });
  client.on(Events.ShardReconnecting, () => {
    if (!connectionLost)
      log("Discord connection lost; reconnecting. Nothing is lost: messages and cards are sent once it is back.");
    connectionLost = true;
  });
  const reconnected = (how: string) => {
    if (connectionLost) log(`Discord connection is back (${how}).`);
    connectionLost = false;
  };
  client.on(Events.ShardResume, () => reconnected("resumed"));
  client.on(Events.ShardReady, () => reconnected("reconnected"));
  const onMessageCreate = (m: Message) => track(conversations.onMessage(m).catch((e) => log(`message ${m.id}`, e)));
  const onInteractionCreate = (i: Interaction) => track(onInteraction(i));
  client.on(Events.MessageCreate, onMessageCreate);
  client.on(Events.InteractionCreate, onInteractionCreate);

  const readyTimeoutMs = opts.readyTimeoutMs ?? 30_000;
  let failStart: (e: unknown) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    failStart = reject;
    const timer = setTimeout(() => reject(new Error(`not connected after ${readyTimeoutMs / 1000}s`)), readyTimeoutMs);
    client.once(Events.ClientReady, () => (clearTimeout(timer), resolve()));
  });
  // A gateway close that cannot be retried (bad token 4004, disallowed intents 4014) ends the start at once.
  const onStartError = (e: Error) => failStart(e);
  client.on(Events.ShardError, onStartError);
  try {
    await Promise.all([client.login(config.token), ready]);
  } catch (e) {
    await client.destroy().catch(() => undefined);
    const known = classifyStartError(e, config.token);
    if (known) throw known;
    const msg = e instanceof Error ? e.message.replaceAll(config.token, "[token]") : String(e);
    throw new Error(
      `discord: could not connect: ${msg}. Check discord.token, the network, and that the Message Content intent is enabled for the bot.`,
    );
  } finally {
    client.off(Events.ShardError, onStartError);
  }
  client.on(Events.ShardError, (e, shard) => log(`gateway connection error (shard ${shard})`, e));
  const readyClient = client as Client<true>;

  const unsubscribe = cards.start();
  const unsubscribeResumed = deliverResumedAnswers(readyClient, port, log);
  await cards.reconcileOnStart();
  if (!opts.skipCommandRegistration) {
    try {
      await registerSlashCommands(readyClient, config.guildId);
    } catch (e) {
      log(
        `registering slash commands${config.guildId ? ` in guild ${config.guildId}` : ""} failed (chat and buttons still work)`,
        e,
      );
    }
  }

  let stopping: Promise<void> | null = null;
  return {
    client: readyClient,
    stop() {
      stopping ??= (async () => {
        life.open = false; // synchronously, before anything else can arrive
        await conversations.stop(opts.shutdownGraceMs);
        await Promise.allSettled([...handlers]);
        unsubscribe();
        unsubscribeResumed();
        // Even a connection discord.js might bring back would find nothing listening.
        client.off(Events.MessageCreate, onMessageCreate);
        client.off(Events.InteractionCreate, onInteractionCreate);
        await client.destroy();
      })();
      return stopping;
    },
  };
}

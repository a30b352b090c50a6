import type { ApprovalRequest } from "@openassistant/core/approvals";
import { ChannelType, type Client, type Message } from "discord.js";
import type { GatewayEvent } from "../../../events/types.ts";
import { actorOfMessage } from "../actor.ts";
import { applyDecision } from "../approvals/approval-actions.ts";
import {
  authorizeChat,
  isApprover,
  REFUSAL_TEXT,
  type Actor,
  type AuthResult,
  type RefusalLimiter,
} from "../authorize.ts";
import type { DmRoleResolver } from "../dm-roles.ts";
import type { SurfaceLife } from "../life.ts";
import { createLiveMessage } from "./live-message.ts";
import { isLockedThread, unarchiveForEdit } from "../archived-threads.ts";
import { fitMessage } from "../render/fit.ts";
import { safely, type SurfaceLog } from "../logger.ts";
import { withRetry } from "../retry.ts";
import { discordOperatorId } from "../operator-id.ts";
import type { SurfacePort } from "../../port.ts";
import { suppressLinkPreviews } from "../render/no-previews.ts";
import { renderActivity } from "../render/render-summary.ts";
import { splitMessage } from "../render/split-message.ts";
import type { DiscordSurfaceConfig } from "../surface-config.ts";
import type { SurfaceStore } from "../store.ts";
import { isApproveText, parseApproveText, stripBotMention, threadNameFrom } from "../commands/text-commands.ts";
import { initialStatus, nextStatus, renderStatus, type TurnStatus } from "../render/turn-status.ts";
import { createKeyedQueue } from "../../../sessions/keyed-queue.ts";

const SURFACE = "discord";
const TYPING_EVERY_MS = 8_000;

/** A channel we can talk in (DM, text channel, thread). */
interface TalkChannel {
  readonly id: string;
  send(payload: AnswerMessage): Promise<{ channel: unknown; edit(p: { content: string }): Promise<unknown> }>;
  sendTyping(): Promise<unknown>;
}

function refusalFor(reason: Exclude<AuthResult, { ok: true }>["reason"]): string {
  if (reason === "user") return REFUSAL_TEXT;
  return `Sorry, I don't answer in this ${reason === "guild" ? "server" : "channel"}. Ask the operator to add it to \`discord.allowed${reason === "guild" ? "Guilds" : "Channels"}\`, or message me where I'm set up.`;
}

/**
 * Chat routing and turn running: DMs are one conversation per user; a mention in an allowed
 * channel opens a thread per conversation; messages in the bot's own threads continue it.
 * Turns of one conversation run one after another; different conversations run in parallel.
 */
export function createConversations(deps: {
  client: Client;
  gateway: SurfacePort;
  store: SurfaceStore;
  config: DiscordSurfaceConfig;
  limiter: RefusalLimiter;
  roles: DmRoleResolver;
  life: SurfaceLife;
  log: SurfaceLog;
}) {
  const { client, gateway, store, config, limiter, roles, life, log } = deps;
  const runChannel = new Map<string, string>();
  const sessionChannel = new Map<string, string>();
  /** Whether the person who started the run / session may decide approvals themselves. */
  const runRequesterApproves = new Map<string, boolean>();
  const sessionRequesterApproves = new Map<string, boolean>();
  const queue = createKeyedQueue();
  const inflight = new Set<Promise<void>>();
  const shutdown = new AbortController();
  let accepting = true;

  function channelFor(request: ApprovalRequest): string | null {
    return (
      runChannel.get(request.runId) ?? (request.sessionId ? sessionChannel.get(request.sessionId) : undefined) ?? null
    );
  }

  /** False when the requester of this (our) approval cannot decide it: approvers must be told elsewhere. */
  function requesterIsApprover(request: ApprovalRequest): boolean {
    // #33: a schedule's run has nobody at the keyboard: its cards go to the approvers' DMs too.
    if (request.requestedBy?.startsWith("schedule:")) return false;
    return (
      runRequesterApproves.get(request.runId) ??
      (request.sessionId ? sessionRequesterApproves.get(request.sessionId) : undefined) ??
      true
    );
  }

  /** The actor with the guild roles a DM does not carry, when it takes roles to pass `check`. */
  async function withDmRoles(
    actor: Actor,
    check: (a: Actor) => boolean,
    use: "chat" | "decision" = "chat",
  ): Promise<Actor> {
    return roles.withRoles(actor, check, use);
  }

  async function refuse(message: Message, result: Exclude<AuthResult, { ok: true }>): Promise<void> {
    if (!limiter.shouldRefuse(message.author.id)) return;
    const text = refusalFor(result.reason);
    if (!message.guildId) {
      await safely(log, `refusing user ${message.author.id} in DM`, () => message.reply(fitMessage({ content: text })));
      return;
    }
    await tellPrivately(message, text);
  }

  async function approveByText(message: Message, text: string): Promise<void> {
    const parsed = parseApproveText(text);
    if (!parsed.ok) {
      await safely(log, "replying to /approve text", () => message.reply(fitMessage({ content: parsed.error })));
      return;
    }
    const kind = parsed.decision === "approved" ? "approve" : "deny";
    const actor = await withDmRoles(actorOfMessage(message), (a) => isApprover(config, a), "decision");
    const applied = await applyDecision(gateway, config, life, actor, parsed.callId, kind, parsed.reason);
    if (!life.open) return; // stopped while looking up roles: say nothing more
    if (!applied.allowed && message.guildId) return tellPrivately(message, applied.text);
    await safely(log, "replying to /approve text", () => message.reply(fitMessage({ content: applied.text })));
  }

  /** A refusal for a guild message goes by DM (the channel only when DMs are closed). */
  async function tellPrivately(message: Message, text: string): Promise<void> {
    const sent = await safely(log, `refusing user ${message.author.id} by DM`, () =>
      message.author.send(fitMessage({ content: text })),
    );
    if (!sent)
      await safely(log, `refusing user ${message.author.id} in channel ${message.channelId}`, () =>
        message.reply(fitMessage({ content: text })),
      );
  }

  /** `/new`: bump the conversation of this DM or bot thread. Returns a user-facing text. */
  async function newConversationText(
    channel: { id: string; type: ChannelType; isThread(): boolean },
    userId: string,
  ): Promise<string> {
    if (channel.type === ChannelType.DM) {
      await store.newConversation(`dm:${userId}`);
      return "Started a fresh conversation. Earlier messages here are forgotten.";
    }
    if (channel.isThread()) {
      await store.newConversation(`thread:${channel.id}`);
      return "Started a fresh conversation in this thread.";
    }
    return "Mention me in this channel to start a new conversation: each one gets its own thread.";
  }

  /** #35: the session `/model` sets in this DM or bot thread; none in a plain channel (each mention starts a thread). */
  async function sessionKeyOf(
    channel: { id: string; type: ChannelType; isThread(): boolean },
    userId: string,
  ): Promise<string | undefined> {
    if (channel.type === ChannelType.DM) return store.sessionKey(`dm:${userId}`);
    if (channel.isThread()) return store.sessionKey(`thread:${channel.id}`);
    return undefined;
  }

  /** Where a message belongs, or null when it is not for us. */
  function route(message: Message, botId: string): { scope: string; needsThread: boolean } | null {
    const ch = message.channel;
    if (ch.type === ChannelType.DM || !message.guildId) return { scope: `dm:${message.author.id}`, needsThread: false };
    if (ch.isThread()) {
      if (ch.ownerId === botId || message.mentions.users.has(botId))
        return { scope: `thread:${ch.id}`, needsThread: false };
      return null;
    }
    if (message.mentions.users.has(botId)) return { scope: "", needsThread: true };
    return null;
  }

  async function onMessage(message: Message): Promise<void> {
    if (!accepting || !life.open || message.author.bot || message.system) return;
    const botId = client.user?.id;
    if (!botId || message.author.id === botId) return;
    const where = route(message, botId);
    if (!where) return;
    // #31: a message delivered to two gateways' connections during a takeover is answered by one.
    if (!(await store.claimMessage(message.id))) return;

    const actor = await withDmRoles(actorOfMessage(message), (a) => authorizeChat(config, a).ok);
    if (!life.open) return; // a stop began during the lookup
    const auth = authorizeChat(config, actor);
    if (!auth.ok) return refuse(message, auth);

    const text = stripBotMention(message.content, botId);
    if (isApproveText(text)) return approveByText(message, text);
    if (/^\s*\/new\s*$/i.test(text) && !where.needsThread) {
      const reply = await newConversationText(message.channel as never, message.author.id);
      await safely(log, "replying to /new", () => message.reply(fitMessage({ content: reply })));
      return;
    }
    if (!text) {
      await safely(log, "replying to an empty mention", () =>
        message.reply(fitMessage({ content: "Yes? Tell me what you need." })),
      );
      return;
    }

    let channel: TalkChannel = message.channel as unknown as TalkChannel;
    let scope = where.scope;
    if (where.needsThread) {
      void safely(log, `typing in channel ${message.channelId}`, () => channel.sendTyping());
      const thread = await safely(log, `creating a thread in channel ${message.channelId}`, () =>
        message.startThread({ name: threadNameFrom(text), autoArchiveDuration: 1440 }),
      );
      if (thread) {
        channel = thread as unknown as TalkChannel;
        scope = `thread:${thread.id}`;
      } else {
        scope = `channel:${message.channelId}:${message.author.id}`;
      }
    }
    const approves = isApprover(config, await withDmRoles(actor, (a) => isApprover(config, a)));
    if (!life.open) return;
    enqueue(scope, channel, message.author.id, text, approves);
  }

  function enqueue(scope: string, channel: TalkChannel, userId: string, text: string, approves: boolean): void {
    const tracked = queue
      .run(scope, () => runTurn(scope, channel, userId, text, approves))
      .catch((e) => log(`turn in ${scope} failed`, e));
    inflight.add(tracked);
    void tracked.finally(() => inflight.delete(tracked));
  }

  async function runTurn(
    scope: string,
    channel: TalkChannel,
    userId: string,
    text: string,
    approves: boolean,
  ): Promise<void> {
    if (shutdown.signal.aborted) return;
    void safely(log, `typing in ${channel.id}`, () => channel.sendTyping());
    const typing = setInterval(
      () => void safely(log, `typing in ${channel.id}`, () => channel.sendTyping()),
      TYPING_EVERY_MS,
    );
    let status: TurnStatus = initialStatus();
    const first = renderStatus(status);
    const statusMessage = channel.send(fitMessage({ content: first })).then((m) => ({
      edit: async (content: string) => {
        if (isLockedThread(m.channel)) return undefined; // a moderator locked the thread: leave it as it is
        await unarchiveForEdit(m.channel, "update the assistant's status message");
        return m.edit(fitMessage({ content }));
      },
    }));
    const live = createLiveMessage(statusMessage, first, log);

    const ownRuns = new Set<string>();
    const onEvent = (e: GatewayEvent) => {
      if (e.type === "turn.started") {
        sessionChannel.set(e.sessionId, channel.id);
        sessionRequesterApproves.set(e.sessionId, approves);
      }
      if (e.type === "run.started") {
        ownRuns.add(e.runId);
        runChannel.set(e.runId, channel.id);
        runRequesterApproves.set(e.runId, approves);
      }
      const next = nextStatus(status, e, (r) => ownRuns.has(r));
      if (next !== status) {
        status = next;
        if (status.phase !== "done") live.set(renderStatus(status));
      }
    };
    // Approval events may not pass through the turn's onEvent; the broker sees them all.
    const unsubscribe = gateway.broker.subscribe((ev) => {
      if (!ownRuns.has(ev.request.runId)) return;
      onEvent(
        ev.type === "requested"
          ? { type: "approval.requested", request: ev.request }
          : { type: "approval.decided", callId: ev.request.callId, decision: ev.decision },
      );
    });

    try {
      const outcome = await gateway.handleMessage({
        sessionKey: await store.sessionKey(scope),
        surface: SURFACE,
        userId: discordOperatorId(userId),
        text,
        signal: shutdown.signal,
        onEvent,
      });
      for (const id of outcome.runIds) ownRuns.add(id);
      clearInterval(typing);
      // A model error ends the turn with an explanation as the answer; the status keeps saying it failed.
      if (status.phase !== "failed") status = { ...status, phase: "done" };
      live.set(renderStatus(status));
      for (const part of answerMessages(
        outcome.text,
        renderActivity(outcome.summary, outcome.unverified, gateway.receiptLink),
        outcome.unverified,
      )) {
        const ok = await withRetry(log, `sending the answer in ${channel.id}`, () => channel.send(fitMessage(part)));
        if (!ok) break;
      }
    } catch (e) {
      clearInterval(typing);
      status = { ...status, phase: "failed", error: e instanceof Error ? e.message : String(e) };
      live.set(renderStatus(status));
      log(`turn in ${scope} failed`, e);
    } finally {
      clearInterval(typing);
      unsubscribe();
      await live.flush();
      for (const id of ownRuns) {
        runChannel.delete(id);
        runRequesterApproves.delete(id);
      }
    }
  }

  return {
    onMessage,
    channelFor,
    requesterIsApprover,
    newConversation: newConversationText,
    sessionKeyOf,
    /** Stops taking messages, lets running turns finish for `graceMs`, then aborts them. */
    async stop(graceMs = 5_000): Promise<void> {
      accepting = false;
      const all = Promise.allSettled([...inflight]);
      const timedOut = await Promise.race([all.then(() => false), Bun.sleep(graceMs).then(() => true)]);
      if (timedOut) {
        shutdown.abort("the gateway is shutting down");
        await Promise.race([Promise.allSettled([...inflight]), Bun.sleep(2_000)]);
      }
    },
    get activeTurns(): number {
      return inflight.size;
    },
  };
}
export type Conversations = ReturnType<typeof createConversations>;

/** One Discord message of an answer: model text in `content`, our activity block in an embed. */
export interface AnswerMessage {
  readonly content?: string;
  readonly embeds?: ReadonlyArray<{ readonly title?: string; readonly description: string; readonly color: number }>;
}

/** Discord's limit for an embed description. */
const EMBED_DESCRIPTION_LIMIT = 4096;
const ACTIVITY_COLOR = 0x80848e;
const UNVERIFIED_COLOR = 0xf0b232;

/**
 * Answer chunks, with the activity block as an embed on the last one. Model text only ever goes in
 * `content` and an embed cannot be written in message markdown, so an answer cannot fake the
 * activity or an approval line. An empty or whitespace-only answer (Discord rejects empty
 * messages) becomes "(no answer)".
 */
export function answerMessages(text: string, activity: string, unverified = false): AnswerMessage[] {
  const parts: AnswerMessage[] = splitMessage(text.trim() ? suppressLinkPreviews(text) : "(no answer)").map(
    (content) => ({ content }),
  );
  if (!activity.trim()) return parts;
  const color = unverified ? UNVERIFIED_COLOR : ACTIVITY_COLOR;
  const embeds = splitMessage(activity, EMBED_DESCRIPTION_LIMIT).map((description, i) => ({
    ...(i === 0 ? { title: "Activity" } : {}),
    description,
    color,
  }));
  // One embed per message: a message's embeds may hold 6000 characters in total.
  parts[parts.length - 1] = { ...parts[parts.length - 1], embeds: [embeds[0]!] };
  for (const embed of embeds.slice(1)) parts.push({ embeds: [embed] });
  return parts;
}

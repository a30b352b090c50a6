import type { Client } from "discord.js";
import type { ActivitySummary } from "@openassistant/core/receipts";
import { safely, type SurfaceLog } from "../logger.ts";
import { fitMessage } from "../render/fit.ts";
import { renderActivity } from "../render/render-summary.ts";
import type { GatewayEvent } from "../../../events/types.ts";
import type { SurfacePort } from "../../port.ts";
import { answerMessages } from "./conversations.ts";

/** Where a conversation's session key (`chat/conversations.ts` scopes) is on Discord. */
export type ConversationPlace = { readonly dmUser: string } | { readonly channelId: string };

/**
 * The place of `discord:dm:<user>`, `discord:thread:<id>`, `discord:channel:<channel>:<user>`
 * (each maybe followed by `:<generation>` after `/new`); undefined for any other key.
 */
export function placeOfSessionKey(key: string): ConversationPlace | undefined {
  const [surface, kind, id] = key.split(":");
  if (surface !== "discord" || !id || !/^\d+$/.test(id)) return undefined;
  if (kind === "dm") return { dmUser: id };
  if (kind === "thread" || kind === "channel") return { channelId: id };
  return undefined;
}

/**
 * #30: the answer of a turn that continued a run resumed after a restart, or answered again a turn a
 * kill cut off (`turn.resumed`), is posted in the conversation the run served, like any answer (its
 * activity block, its unverified mark).
 * Returns the unsubscribe function.
 */
export function deliverResumedAnswers(client: Client, gateway: SurfacePort, log: SurfaceLog): () => void {
  return gateway.events.subscribe((e) => {
    // #33: a scheduled turn's answer and a failing schedule's alert go to its conversation the same way.
    if (e.type === "turn.scheduled" || e.type === "schedule.alert") return deliverScheduled(client, gateway, log, e);
    // #32: an ability run's end is told to the conversation it was started in, the same way.
    if (e.type === "ability.finished" && e.surface === "discord")
      return post(client, gateway, log, `the end of ability run ${e.abilityRunId}`, { ...e, unverified: false });
    if (e.type !== "turn.resumed" || e.surface !== "discord") return;
    post(client, gateway, log, e.runId ? `resumed run ${e.runId}` : "a turn cut off by a restart", e);
  });
}

function post(
  client: Client,
  gateway: SurfacePort,
  log: SurfaceLog,
  what: string,
  e: { sessionKey: string; text: string; summary: ActivitySummary; unverified: boolean },
): void {
  void safely(log, `sending the answer of ${what} (${e.sessionKey})`, async () => {
    const channel = await conversationChannel(client, e.sessionKey);
    for (const part of answerMessages(
      e.text,
      renderActivity(e.summary, e.unverified, gateway.receiptLink),
      e.unverified,
    ))
      await channel.send(fitMessage(part));
  });
}

/** The channel a session key names (a DM opened when needed); throws saying why it cannot be written to. */
async function conversationChannel(client: Client, sessionKey: string) {
  const place = placeOfSessionKey(sessionKey);
  if (!place) throw new Error(`the session key ${sessionKey} names no Discord conversation`);
  const channel =
    "dmUser" in place
      ? await (await client.users.fetch(place.dmUser)).createDM()
      : await client.channels.fetch(place.channelId);
  if (!channel || !("send" in channel) || typeof channel.send !== "function")
    throw new Error(`the conversation of ${sessionKey} cannot be written to`);
  return channel;
}

/** #33: a scheduled turn's answer (with its activity block), or a failing schedule's alert mentioning its creator. */
function deliverScheduled(
  client: Client,
  gateway: SurfacePort,
  log: SurfaceLog,
  e: Extract<GatewayEvent, { type: "turn.scheduled" | "schedule.alert" }>,
): void {
  if (e.surface !== "discord") return;
  void safely(log, `sending ${e.type} of schedule ${e.scheduleId} (${e.sessionKey})`, async () => {
    const channel = await conversationChannel(client, e.sessionKey);
    if (e.type === "schedule.alert") {
      const creator = /^discord:(\d+)$/.exec(e.createdBy)?.[1];
      await channel.send(fitMessage({ content: `${creator ? `<@${creator}> ` : ""}⚠️ ${e.text}` }));
      return;
    }
    for (const part of answerMessages(
      e.text,
      renderActivity(e.summary, e.unverified, gateway.receiptLink),
      e.unverified,
    ))
      await channel.send(fitMessage(part));
  });
}

import type { ApprovalRecord } from "@openassistant/core/approvals";
import type { ApprovalRequest } from "@openassistant/core/approvals";
import type { Client } from "discord.js";
import { approverUserIds } from "../authorize.ts";
import { safely, type SurfaceLog } from "../logger.ts";
import type { SurfacePort } from "../../port.ts";
import { cardButtonId } from "../custom-ids.ts";
import { cardFiles, renderCard, type CardMessage, type CardState } from "../render/render-card.ts";
import { describeDiscordError } from "../discord-errors.ts";
import { retryWhileUnreachable } from "../retry.ts";
import { isLockedThread, unarchiveForEdit } from "../archived-threads.ts";
import { fitMessage, fitText } from "../render/fit.ts";
import type { DiscordSurfaceConfig } from "../surface-config.ts";
import type { SurfaceStore } from "../store.ts";

const RESTART_REASON = "the gateway restarted before this was decided";

/** The card state a stored approval record calls for. */
export function cardStateOf(record: ApprovalRecord): CardState {
  if (record.status === "pending" || !record.decision) return { kind: "pending" };
  const at = record.decidedAt ?? Date.now();
  if (record.decision.by === "system")
    return { kind: "closed", reason: record.decision.reason ?? "closed by the system", at };
  return { kind: "decided", decision: record.decision, at };
}

interface SendableChannel {
  send(payload: CardMessage): Promise<{ id: string; channelId: string }>;
  messages: {
    edit(id: string, payload: CardMessage): Promise<unknown>;
    fetch(opts: { limit: number }): Promise<Map<string, { id: string; components: Array<{ toJSON(): unknown }> }>>;
  };
}

/** How far back to look for a card whose post was interrupted by a crash. */
const ORPHAN_SEARCH_LIMIT = 50;

/**
 * Posts a card for every approval request of a conversation this surface runs, and DM copies to
 * every approver user id when configured, when the conversation is not ours, or when the requester
 * is not an approver (otherwise nobody who may decide would see it). Remembers where each card is, and edits all copies when the request
 * is decided, expires, or is closed by a restart.
 */
export function createApprovalCards(deps: {
  client: Client;
  gateway: Pick<SurfacePort, "broker">;
  store: SurfaceStore;
  config: DiscordSurfaceConfig;
  /** Channel of the conversation that made this request, or null when it is not ours. */
  channelFor(request: ApprovalRequest): string | null;
  /** False when the person who asked cannot decide (e.g. an allowed user who is not an approver, in a DM). */
  requesterIsApprover?(request: ApprovalRequest): boolean;
  log: SurfaceLog;
}) {
  const { client, gateway, store, config, log } = deps;
  /** Card posting in progress per call, so a fast decision waits for the card it must edit. */
  const posting = new Map<string, Promise<void>>();
  /** Messages already showing the final state (edited by the click itself). */
  const finalShown = new Map<string, Set<string>>();

  async function channel(id: string): Promise<SendableChannel | null> {
    const ch = (await client.channels.fetch(id)) as unknown as SendableChannel | null;
    return ch && typeof ch.send === "function" ? ch : null;
  }

  /** User ids among the approvers (role ids cannot be DMed; a role is recognised in any guild the bot is in). */
  function approverUsers(): string[] {
    const isRole = (id: string) => client.guilds.cache.some((g) => g.roles.cache.has(id));
    return approverUserIds(config).filter((id) => !isRole(id));
  }

  /**
   * Posts the card everywhere it must go and counts the copies an approver can see: the
   * conversation (unless it is the DM of someone who cannot decide), `discord.approvalsChannel`, and
   * approver DMs (when configured, when the conversation is not ours or its requester cannot decide,
   * and as a fallback when the conversation copy failed). When no approver got a copy, the request
   * is denied at once with the reason, so neither the model nor the user waits for a timeout.
   */
  async function post(request: ApprovalRequest): Promise<void> {
    // #30: a run resumed after a restart asks again under the same call id: the cards posted before
    // the restart are still its cards (a click on one decides it); none is posted twice.
    if ((await store.cards(request.callId)).length > 0) return;
    const channelId = deps.channelFor(request);
    // The whole input goes along as input.json; later edits leave the file in place.
    const payload = { ...fitMessage(renderCard(request, { kind: "pending" })), files: cardFiles(request) };
    const requesterApproves = deps.requesterIsApprover?.(request) ?? true;
    const reached: string[] = [];
    const failures: string[] = [];

    const sendTo = async (
      where: string,
      targetId: string,
      kind: "conversation" | "dm" | "channel",
      counts: boolean,
    ): Promise<boolean> => {
      try {
        const ch = await channel(targetId);
        if (!ch) throw new Error("channel not found or not text-based");
        await store.addCard({
          callId: request.callId,
          channelId: targetId,
          messageId: "",
          kind: kind === "channel" ? "conversation" : kind,
        });
        // While Discord is unreachable the post is retried (until the request expires), so the card is not lost.
        const msg = await retryWhileUnreachable(() => ch.send(payload), request.expiresAt);
        await store.addCard({
          callId: request.callId,
          channelId: targetId,
          messageId: msg.id,
          kind: kind === "channel" ? "conversation" : kind,
        });
        if (counts) reached.push(where);
        return true;
      } catch (e) {
        await store.dropCard(request.callId, targetId);
        failures.push(`${where}: ${describeDiscordError(e)}`);
        log(`posting approval card for ${request.toolPath} (${request.callId}) in ${where}`, e);
        return false;
      }
    };

    let conversationOk = false;
    if (channelId) {
      const isDm = client.channels.cache.get(channelId)?.isDMBased() ?? false;
      conversationOk = await sendTo("the conversation", channelId, "conversation", requesterApproves || !isDm);
    }
    if (config.approvalsChannel && config.approvalsChannel !== channelId)
      await sendTo("the approvals channel", config.approvalsChannel, "channel", true);
    if (config.approvalDmToApprovers || !channelId || !requesterApproves || !conversationOk) {
      const users = approverUsers();
      if (users.length === 0 && !requesterApproves) {
        log(
          `approval ${request.callId} (${request.toolPath}): the requester is not an approver and no approver user id can be DMed; add a user id to discord.approvers`,
        );
      }
      await Promise.all(
        users.map(async (userId) => {
          try {
            const user = await client.users.fetch(userId);
            const dm = await user.createDM();
            if (dm.id === channelId) {
              if (conversationOk) reached.push(`the DM of approver ${userId}`); // the conversation is this approver's DM: the card is already there
              return;
            }
            await sendTo(`the DM of approver ${userId}`, dm.id, "dm", true);
          } catch (e) {
            failures.push(`the DM of approver ${userId}: ${describeDiscordError(e)}`);
            log(`sending approval card ${request.callId} to approver ${userId} by DM`, e);
          }
        }),
      );
    }
    if (reached.length > 0) return;
    const why = failures.length ? failures.join("; ") : "there is no approver to send it to";
    const reason = fitText(
      `no approver could be shown the approval card (${why}). Set discord.approvalsChannel, or check the bot's permissions and that approvers accept DMs from it.`,
      900,
    );
    log(`approval ${request.callId} (${request.toolPath}) denied at once: ${reason}`);
    await gateway.broker.decide(request.callId, { decision: "denied", by: "system", reason });
  }

  /** Edits every stored copy of the card to match the approval record (except copies the click already updated). */
  async function refresh(callId: string, record?: ApprovalRecord): Promise<void> {
    await posting.get(callId);
    const rec = record ?? (await gateway.broker.get(callId));
    if (!rec) return;
    const state = cardStateOf(rec);
    const payload = fitMessage(renderCard(rec.request, state));
    const done = finalShown.get(callId);
    let failed = false;
    await Promise.all(
      (await store.cards(callId)).map((ref) => {
        if (done?.has(ref.messageId)) return undefined;
        return safely(
          log,
          `editing approval card ${callId} (message ${ref.messageId || "unknown"} in ${ref.channelId})`,
          async () => {
            const ch = await channel(ref.channelId);
            if (!ch) throw new Error("channel not found");
            let messageId = ref.messageId;
            if (!messageId) {
              // Posted, but the process died before recording the id: find it by its deterministic button id.
              const marker = cardButtonId("approve", callId);
              const recent = await ch.messages.fetch({ limit: ORPHAN_SEARCH_LIMIT });
              const found = [...recent.values()].find((m) =>
                JSON.stringify(m.components.map((c) => c.toJSON())).includes(`"${marker}"`),
              );
              if (!found) return true; // never posted: nothing to edit
              messageId = found.id;
              await store.addCard({ ...ref, messageId });
            }
            if (done?.has(messageId)) return true;
            if (isLockedThread(ch)) throw new Error("the card is in a locked thread");
            await unarchiveForEdit(ch, "update an approval card");
            await ch.messages.edit(messageId, payload);
            return true;
          },
        ).then((r) => {
          if (r === undefined) failed = true;
        });
      }),
    );
    finalShown.delete(callId);
    // A deleted card cannot be fixed by retrying; a transient failure is retried on the next start.
    if (state.kind !== "pending" && !failed) await store.markFinal(callId);
  }

  return {
    /** Subscribes to the broker; returns the unsubscribe function. */
    start(): () => void {
      return gateway.broker.subscribe((event) => {
        const callId = event.request.callId;
        if (event.type === "requested") {
          const p = post(event.request).finally(() => {
            if (posting.get(callId) === p) posting.delete(callId);
          });
          posting.set(callId, p);
        } else {
          void refresh(callId);
        }
      });
    },
    /** The click already rendered the final card on this message; don't edit it again. */
    markShown(callId: string, messageId: string): void {
      let set = finalShown.get(callId);
      if (!set) finalShown.set(callId, (set = new Set()));
      set.add(messageId);
    },
    refresh,
    /** Waits until the card for this call has been posted (or failed to). */
    posted(callId: string): Promise<void> {
      return posting.get(callId) ?? Promise.resolve();
    },
    /**
     * On start: deny requests a previous process left pending (the gateway may already have done
     * so), then edit every card that still shows buttons although its approval is settled.
     */
    async reconcileOnStart(): Promise<string[]> {
      await gateway.broker.closeOrphans(RESTART_REASON);
      const settled: string[] = [];
      for (const callId of await store.unfinishedCallIds()) {
        const rec = await gateway.broker.get(callId);
        if (rec !== undefined && rec.status !== "pending") settled.push(callId);
      }
      await Promise.all(settled.map((callId) => refresh(callId)));
      return settled;
    },
  };
}
export type ApprovalCards = ReturnType<typeof createApprovalCards>;

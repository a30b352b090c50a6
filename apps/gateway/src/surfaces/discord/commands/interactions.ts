import {
  type AutocompleteInteraction,
  escapeMarkdown,
  MessageFlags,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Interaction,
  type InteractionReplyOptions,
  type ModalSubmitInteraction,
} from "discord.js";
import { actorOfInteraction } from "../actor.ts";
import { applyDecision, describeResult } from "../approvals/approval-actions.ts";
import { cardStateOf, type ApprovalCards } from "../approvals/approval-cards.ts";
import { authorizeChat, isApprover, NOT_APPROVER_TEXT, REFUSAL_TEXT, type Actor } from "../authorize.ts";
import type { Conversations } from "../chat/conversations.ts";
import { DENY_REASON_FIELD, denyModalId, parseCustomId } from "../custom-ids.ts";
import { ACKED_LOOKUP_TIMEOUT_MS, type DmRoleResolver } from "../dm-roles.ts";
import { STOPPING_TEXT, type SurfaceLife } from "../life.ts";
import { safely, type SurfaceLog } from "../logger.ts";
import { discordOperatorId } from "../operator-id.ts";
import type { SurfacePort } from "../../port.ts";
import { modelCommand } from "../../../model/model-command.ts";
import { ABILITIES_OFF_TEXT, abilityCommandAnswer, respondAbilityNames } from "./ability-command.ts";
import type { ApprovalRecord } from "@openassistant/core/approvals";
import { isLockedThread, unarchiveForEdit } from "../archived-threads.ts";
import { echo, fitMessage, fitModal } from "../render/fit.ts";
import { renderCard } from "../render/render-card.ts";
import { renderPendingList } from "../render/render-pending.ts";
import { RECEIPTS_PAGE_SIZE, renderReceipts, renderRules, renderTools } from "../render/render-lists.ts";
import { splitMessage } from "../render/split-message.ts";
import type { DiscordSurfaceConfig } from "../surface-config.ts";

const EPHEMERAL = MessageFlags.Ephemeral as const;
const APPROVER_COMMANDS = new Set(["reload", "receipts", "approvals"]);

/**
 * Buttons, modals and slash commands. Every interaction is answered at once (update, reply,
 * modal or defer) so Discord's 3 s window is never missed; every failure is logged, never thrown.
 */
export function createInteractionHandler(deps: {
  gateway: SurfacePort;
  config: DiscordSurfaceConfig;
  cards: ApprovalCards;
  conversations: Conversations;
  roles: DmRoleResolver;
  life: SurfaceLife;
  log: SurfaceLog;
}) {
  const { gateway, config, cards, conversations, roles, life, log } = deps;

  /**
   * The approver check on this interaction's own facts: in a guild the member (and roles) the
   * interaction carries; in a DM the guild roles looked up now (see dm-roles.ts: nothing remembered grants).
   */
  /** `acked`: the interaction is already acknowledged, so the lookup may wait out a rate limit. */
  async function approverActor(actor: Actor, acked: boolean): Promise<{ actor: Actor; ok: boolean }> {
    const timeoutMs = acked ? ACKED_LOOKUP_TIMEOUT_MS : undefined;
    const checked = await roles.withRoles(actor, (a) => isApprover(config, a), "decision", timeoutMs);
    return { actor: checked, ok: isApprover(config, checked) };
  }

  /**
   * Every interaction must be acknowledged, and an ephemeral reply is private, so interactions
   * always get their refusal; the per-user limiter only applies to plain messages.
   */
  async function refuseInteraction(
    i: ButtonInteraction | ModalSubmitInteraction | ChatInputCommandInteraction,
    text: string,
  ): Promise<void> {
    const payload = fitMessage({ content: text, flags: EPHEMERAL });
    // A command acknowledged with deferReply shows "thinking…" until that reply is edited.
    if (i.isChatInputCommand() && i.deferred && !i.replied) await i.editReply(fitMessage({ content: text }));
    else if (i.deferred || i.replied) await i.followUp(payload);
    else await i.reply(payload);
  }

  /** A private note to whoever clicked (after the click was acknowledged). */
  async function tell(i: ButtonInteraction | ModalSubmitInteraction, text: string): Promise<void> {
    await i.followUp(fitMessage({ content: text, flags: EPHEMERAL }));
  }

  /**
   * Shows `record`'s current state on the card the click came from. A card in an archived thread
   * is unarchived first (Discord refuses edits there); in a locked thread the clicker is told instead.
   */
  async function showOnCard(i: ButtonInteraction | ModalSubmitInteraction, record: ApprovalRecord): Promise<boolean> {
    if (isLockedThread(i.channel)) {
      await tell(i, `This card is in a locked thread, so it cannot be updated. ${stateLine(record)}`);
      return false;
    }
    await unarchiveForEdit(i.channel, "update an approval card");
    await i.editReply(fitMessage(renderCard(record.request, cardStateOf(record))) as never);
    return true;
  }

  function stateLine(record: ApprovalRecord): string {
    if (record.status === "pending" || !record.decision)
      return `\`${record.request.toolPath}\` (${record.request.callId}) is still pending.`;
    return describeResult(record.request.callId, {
      outcome: "already-decided",
      request: record.request,
      decision: record.decision,
    });
  }

  function isCardMessage(i: ButtonInteraction): boolean {
    return i.message.embeds.some((e) => (e.title ?? "").startsWith("Approval needed"));
  }

  async function onButton(i: ButtonInteraction): Promise<void> {
    const parsed = parseCustomId(i.customId);
    // Not ours (e.g. a stale component of an older version): acknowledge silently, or Discord shows "interaction failed".
    if (!parsed || parsed.kind !== "card") return void (await i.deferUpdate());
    const { callId, action } = parsed;

    if (action === "denyr") {
      // A modal must be the first answer to the click, so it cannot wait behind a defer: the
      // approver check (for DMs a role lookup bounded at 1.5 s) comes first, and only an approver
      // ever sees the form. The submit is checked again.
      if (!(await approverActor(actorOfInteraction(i), false)).ok) return refuseInteraction(i, NOT_APPROVER_TEXT);
      if (!life.open) return refuseInteraction(i, STOPPING_TEXT);
      const record = await gateway.broker.get(callId);
      if (record?.status === "pending") {
        await i.showModal(
          fitModal({
            custom_id: denyModalId(callId),
            title: "Deny with reason",
            components: [
              {
                type: 1,
                components: [
                  {
                    type: 4,
                    custom_id: DENY_REASON_FIELD,
                    style: 2,
                    label: "Reason (the assistant will see it)",
                    required: true,
                    max_length: 1000,
                  },
                ],
              },
            ],
          }) as never,
        );
        return;
      }
      await i.deferUpdate();
      if (!record)
        return tell(i, `This approval (\`${echo(callId)}\`) is unknown to the gateway; nothing was changed.`);
      if (i.message.components.length > 0) await showOnCard(i, record);
      return tell(i, stateLine(record));
    }

    // Acknowledge first: Discord's 3 s window never depends on role lookups, SQLite or edits.
    // If the acknowledgement itself came too late (a stalled process), the click still counts: the
    // decision is recorded and every copy of the card is edited through the channel instead.
    const kind = action === "approve" || action === "lapprove" ? "approve" : action === "always" ? "always" : "deny";
    const acked = await i.deferUpdate().then(
      () => true,
      (e) => (log(`acknowledging click ${i.id} on ${callId} failed; deciding anyway`, e), false),
    );
    const { actor, ok } = await approverActor(actorOfInteraction(i), true);
    if (!acked) {
      if (ok) await applyDecision(gateway, config, life, actor, callId, kind);
      return;
    }
    if (!life.open) return tell(i, STOPPING_TEXT);
    if (!ok) return tell(i, NOT_APPROVER_TEXT);
    const record = await gateway.broker.get(callId);
    if (!record) return tell(i, `This approval (\`${echo(callId)}\`) is unknown to the gateway; nothing was changed.`);
    const fromCard = isCardMessage(i);
    if (fromCard) cards.markShown(callId, i.message.id);
    const applied = await applyDecision(gateway, config, life, actor, callId, kind);
    if (!applied.allowed) return tell(i, applied.text); // unreachable: checked above
    const fresh = (await gateway.broker.get(callId)) ?? record;
    if (!fromCard) {
      // A button of the /approvals list: refresh the list, then say what happened.
      await i.editReply(fitMessage(renderPendingList(await gateway.broker.pending())) as never);
      return tell(i, applied.text);
    }
    const result = applied.result;
    // Duplicate or late: a card that still shows buttons (e.g. a copy whose edit failed) is brought
    // up to date; one that already shows the outcome is left alone. Either way nothing changes.
    const shown = result.outcome === "decided" || i.message.components.length > 0 ? await showOnCard(i, fresh) : true;
    // (When the card could not be shown, the clicker was already told the outcome.)
    if (shown && (result.outcome !== "decided" || result.rule)) await tell(i, applied.text);
  }

  async function onModal(i: ModalSubmitInteraction): Promise<void> {
    const parsed = parseCustomId(i.customId);
    if (!parsed || parsed.kind !== "deny-modal") {
      if (i.isFromMessage()) await i.deferUpdate();
      else await i.deferReply({ flags: EPHEMERAL });
      return;
    }
    // Acknowledge first, then decide.
    if (i.isFromMessage()) await i.deferUpdate();
    else await i.deferReply({ flags: EPHEMERAL });
    const { actor, ok } = await approverActor(actorOfInteraction(i), true);
    if (!ok) return tell(i, NOT_APPROVER_TEXT);
    const reason = i.fields.getTextInputValue(DENY_REASON_FIELD).trim();
    if (i.message) cards.markShown(parsed.callId, i.message.id);
    const applied = await applyDecision(gateway, config, life, actor, parsed.callId, "deny", reason || undefined);
    if (!applied.allowed) return tell(i, applied.text);
    const record = await gateway.broker.get(parsed.callId);
    if (i.isFromMessage() && record) {
      const shown = await showOnCard(i, record);
      if (shown && applied.result.outcome !== "decided") await tell(i, applied.text);
    } else {
      await i.editReply(fitMessage({ content: applied.text }));
    }
  }

  async function replyLong(i: ChatInputCommandInteraction, text: string, ephemeral = true): Promise<void> {
    const parts = splitMessage(text);
    const flags = ephemeral ? EPHEMERAL : undefined;
    if (i.deferred) await i.editReply(fitMessage({ content: parts[0] ?? "(empty)" }));
    else await i.reply(fitMessage({ content: parts[0] ?? "(empty)", flags }));
    for (const p of parts.slice(1)) await i.followUp(fitMessage({ content: p, flags }));
  }

  /** The command's answer: the reply, or the edit of the acknowledgement when it was deferred first. */
  async function answer(i: ChatInputCommandInteraction, payload: InteractionReplyOptions): Promise<void> {
    if (!i.deferred && !i.replied) return void (await i.reply(payload));
    // An edit cannot set flags (the deferred reply already chose whether it is private).
    const { flags: _chosen, ...edit } = payload;
    await i.editReply(edit as never);
  }

  async function onCommand(i: ChatInputCommandInteraction): Promise<void> {
    let actor = actorOfInteraction(i);
    // A DM carries no roles: checking one may look the member up (REST, rate-limited). Acknowledge
    // first, so Discord's 3 s never waits on the lookup (the answer is then private).
    if (actor.guildId === null && !isApprover(config, actor)) await i.deferReply({ flags: EPHEMERAL });
    actor = await roles.withRoles(actor, (a) => authorizeChat(config, a).ok, "chat");
    const auth = authorizeChat(config, actor);
    if (!auth.ok) return refuseInteraction(i, REFUSAL_TEXT);
    // Receipts show every conversation's inputs and reload changes what runs: approvers only.
    if (APPROVER_COMMANDS.has(i.commandName)) {
      const checked = await approverActor(actor, false);
      if (!checked.ok)
        return refuseInteraction(
          i,
          `Sorry, \`/${i.commandName}\` is for approvers only (set in \`discord.approvers\`). Nothing was changed.`,
        );
      actor = checked.actor;
    }
    // Checked after the lookups above: a stop that began meanwhile leaves the command undone.
    if (!life.open) return refuseInteraction(i, STOPPING_TEXT);

    switch (i.commandName) {
      case "tools":
        return replyLong(i, renderTools(await gateway.listTools()));
      case "reload": {
        if (!i.deferred) await i.deferReply({ flags: EPHEMERAL });
        try {
          const report = await gateway.reload();
          return replyLong(i, renderTools(report, "Reloaded tools"));
        } catch (e) {
          return replyLong(
            i,
            `Reload failed: ${e instanceof Error ? e.message : String(e)}. The previous tools stay loaded.`,
          );
        }
      }
      case "receipts": {
        const runId = i.options.getString("run") ?? undefined;
        const page = i.options.getInteger("page") ?? 1;
        const start = (page - 1) * RECEIPTS_PAGE_SIZE;
        // A run's trail in call order; the recent list newest first (query returns the newest rows, oldest first).
        const all = runId
          ? await gateway.receipts.byRun(runId)
          : (await gateway.receipts.query({ limit: Math.min(10_000, start + RECEIPTS_PAGE_SIZE + 1) })).reverse();
        const slice = all.slice(start, start + RECEIPTS_PAGE_SIZE);
        return replyLong(i, renderReceipts(slice, { page, runId, hasMore: all.length > start + RECEIPTS_PAGE_SIZE }));
      }
      case "approvals": {
        await answer(
          i,
          fitMessage({ ...renderPendingList(await gateway.broker.pending()), flags: EPHEMERAL }) as never,
        );
        return;
      }
      case "new": {
        const ch = i.channel;
        const text = ch
          ? await conversations.newConversation(ch as never, i.user.id)
          : await conversations.newConversation({ id: i.channelId, type: 1, isThread: () => false }, i.user.id);
        await answer(i, fitMessage({ content: text }));
        return;
      }
      case "model": {
        const ch = i.channel ?? { id: i.channelId, type: 1, isThread: () => false };
        const key = await conversations.sessionKeyOf(ch as never, i.user.id);
        if (!key)
          return replyLong(
            i,
            "Use `/model` in the assistant's thread or in a DM with it: each conversation has its own model.",
          );
        const lines = await modelCommand(
          gateway,
          { key, surface: "discord" },
          i.options.getString("name")?.trim() ?? "",
        );
        return replyLong(i, lines.map((l) => escapeMarkdown(l)).join("\n"));
      }
      case "ability": {
        const ch = i.channel ?? { id: i.channelId, type: 1, isThread: () => false };
        const key = await conversations.sessionKeyOf(ch as never, i.user.id);
        if (!key)
          return replyLong(
            i,
            "Use `/ability` in the assistant's thread or in a DM with it: each conversation has its own ability runs.",
          );
        if (!gateway.abilityNames) return replyLong(i, ABILITIES_OFF_TEXT);
        // A run may take its first steps before it answers: acknowledge within Discord's 3 s first.
        // `run` and `cancel` are shown to the conversation, like their typed form; the others privately.
        const shown = i.options.getSubcommand(false) === "run" || i.options.getSubcommand(false) === "cancel";
        if (!i.deferred) await i.deferReply(shown ? {} : { flags: EPHEMERAL });
        return replyLong(i, await abilityCommandAnswer(gateway, key, i), !shown);
      }
      case "approve": {
        const callId = i.options.getString("id", true).trim();
        const verb = i.options.getString("decision", true);
        const reason = i.options.getString("reason") ?? undefined;
        const applied = await applyDecision(
          gateway,
          config,
          life,
          (await approverActor(actor, false)).actor,
          callId,
          verb === "approve" ? "approve" : "deny",
          reason,
        );
        await answer(i, fitMessage({ content: applied.text, flags: EPHEMERAL }));
        return;
      }
      case "rules": {
        const sub = i.options.getSubcommand(false) ?? "list";
        if (sub === "revoke") {
          if (!(await approverActor(actor, false)).ok) return refuseInteraction(i, NOT_APPROVER_TEXT);
          if (!life.open) return refuseInteraction(i, STOPPING_TEXT);
          const id = i.options.getString("id", true).trim();
          const ok = await gateway.broker.rules.revoke(id, discordOperatorId(i.user.id));
          await answer(
            i,
            fitMessage({
              content: ok
                ? `Revoked rule \`${echo(id)}\`. Calls to that tool need approval again.`
                : `No active rule \`${echo(id)}\`. See \`/rules list\`.`,
              flags: EPHEMERAL,
            }),
          );
          return;
        }
        return replyLong(i, renderRules(await gateway.broker.rules.list({ activeAt: Date.now() })));
      }
      default:
        await answer(i, fitMessage({ content: `Unknown command \`/${echo(i.commandName)}\`.`, flags: EPHEMERAL }));
    }
  }

  /** Autocomplete (only `/ability run`'s name asks for it): offered to those allowed to chat, else nothing. */
  async function onAutocomplete(i: AutocompleteInteraction): Promise<void> {
    // No role lookup here: an autocomplete must be answered within 3 s and cannot be deferred.
    if (i.commandName !== "ability" || !authorizeChat(config, actorOfInteraction(i)).ok) return i.respond([]);
    await respondAbilityNames(gateway, i);
  }

  return async function onInteraction(i: Interaction): Promise<void> {
    await safely(
      log,
      `handling interaction ${i.id} (${i.isButton() || i.isModalSubmit() ? i.customId : i.isChatInputCommand() ? `/${i.commandName}` : i.type})`,
      async () => {
        // A stopping surface decides nothing: whatever arrives is told so, privately.
        if (!life.open) {
          if (i.isAutocomplete()) await i.respond([]);
          else if (i.isRepliable()) await i.reply(fitMessage({ content: STOPPING_TEXT, flags: EPHEMERAL }));
          return;
        }
        if (i.isButton()) await onButton(i);
        else if (i.isModalSubmit()) await onModal(i);
        else if (i.isChatInputCommand()) await onCommand(i);
        else if (i.isMessageComponent())
          await i.deferUpdate(); // a select menu: never ours
        else if (i.isAutocomplete()) await onAutocomplete(i);
      },
    );
  };
}

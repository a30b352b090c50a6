import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  botTexts,
  cardCallId,
  decisionField,
  eventually,
  findCard,
  startDiscordE2E,
  toolThenAnswer,
  type DiscordE2E,
  isCard,
} from "../../../../test/discord-e2e.ts";

let e: DiscordE2E;
beforeAll(async () => {
  e = await startDiscordE2E({ config: { approvalDmToApprovers: true, alwaysScope: "global", alwaysTtlHours: 2 } });
});
afterAll(() => e.close());

function newCard(channelId: string, toolPath: string, before: Set<string>) {
  return eventually(() => {
    if (!e.fake.channel(channelId)) return undefined; // the thread may not exist yet
    const c = findCard(e.fake, channelId, toolPath);
    return c && !before.has(c.id) ? c : undefined;
  }, `a new ${toolPath} card in ${channelId}`);
}

/** Alice mentions the bot in #general; returns the thread the bot opens for it. */
function askInChannel(content: string): string {
  const message = e.fake.sendUserMessage({
    channelId: e.ids.channelId,
    authorId: e.ids.alice,
    content,
    mentionsBot: true,
  });
  return message.id as string; // a thread started from a message has the message's id
}

describe("approvalDmToApprovers and global 'approve always' rules", () => {
  test("approvalDmToApprovers: the card is posted in the thread and DMed to the approver; deciding on the DM copy edits both", async () => {
    const dm = e.fake.dmChannelId(e.ids.alice);
    const beforeDm = new Set(e.fake.messages(dm).map((m) => m.id));
    e.h.api.script(toolThenAnswer('return await tools.notes.remove({ text: "old" })', () => "Removed the old note."));
    const thread = askInChannel("remove the old note");
    const inThread = await newCard(thread, "notes.remove", new Set());
    const inDm = await newCard(dm, "notes.remove", beforeDm);
    const callId = cardCallId(inDm);
    expect(cardCallId(inThread)).toBe(callId);

    const click = e.fake.clickButton({ messageId: inDm.id, customId: `oa:approve:${callId}`, userId: e.ids.alice });
    const cb = await click.callback();
    expect(cb.type).toBe(6);
    expect(cb.latencyMs).toBeLessThan(3000);
    await eventually(
      () => botTexts(e.fake, thread).find((t) => t.startsWith("Removed the old note.")),
      "the answer in the thread",
    );
    expect(e.ran.map((r) => r.what)).toContain("notes.remove:old");
    const threadCopy = await eventually(() => {
      const m = e.fake.message(inThread.id)!;
      return m.components.length === 0 && m;
    }, "the thread copy to be edited");
    expect(decisionField(threadCopy)).toContain(`Approved by <@${e.ids.alice}>`);
    expect(decisionField(e.fake.message(inDm.id))).toContain(`Approved by <@${e.ids.alice}>`);
  });

  test("alwaysScope global: a rule made in the DM conversation skips the card in a channel thread; alwaysTtlHours sets its expiry", async () => {
    const dm = e.fake.dmChannelId(e.ids.alice);
    const before = new Set(e.fake.messages(dm).map((m) => m.id));
    e.h.api.script(toolThenAnswer('return await tools.notes.write({ text: "G1" })', () => "Saved G1."));
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "save G1" });
    const card = await newCard(dm, "notes.write", before);
    await Bun.sleep(50);
    // The conversation is the approver's own DM: one card, not a second "DM copy" beside it.
    expect(
      e.fake.messages(dm).filter((m) => !before.has(m.id) && m.embeds?.[0]?.title === "Approval needed: notes.write"),
    ).toHaveLength(1);
    const click = e.fake.clickButton({
      messageId: card.id,
      customId: `oa:always:${cardCallId(card)}`,
      userId: e.ids.alice,
    });
    await click.callback();
    await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith("Saved G1.")), "the first answer");
    expect(await eventually(() => click.followUps()[0]?.content, "the rule follow-up")).toContain("everywhere");
    const rules = await e.h.gateway.approvals.rules.list({ activeAt: Date.now() });
    expect(rules).toHaveLength(1);
    expect(rules[0]!.scope).toBe("global");
    const ttl = rules[0]!.expiresAt! - Date.now();
    expect(ttl).toBeGreaterThan(2 * 3600_000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(2 * 3600_000);

    const dmBefore = new Set(e.fake.messages(dm).map((m) => m.id));
    e.h.api.script(toolThenAnswer('return await tools.notes.write({ text: "G2" })', () => "Saved G2."));
    const thread = askInChannel("save G2 please");
    await eventually(
      () => e.fake.channel(thread) && botTexts(e.fake, thread).find((t) => t.startsWith("Saved G2.")),
      "the answer in the other conversation",
    );
    expect(e.fake.messages(thread).filter((m) => isCard(m))).toHaveLength(0);
    expect(e.fake.messages(dm).filter((m) => !dmBefore.has(m.id) && isCard(m))).toHaveLength(0);
    expect(e.ran.map((r) => r.what)).toContain("notes.write:G2");
    const approved = (await e.h.gateway.receipts.query({ tool: "notes.write", phase: "approved" })).at(-1)!;
    expect(approved.decidedBy).toBe(`rule:${rules[0]!.id}`);
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { textTurn } from "@openassistant/testkit";
import {
  botTexts,
  cardCallId,
  decisionField,
  eventually,
  findCard,
  lastToolResultText,
  startDiscordE2E,
  toolThenAnswer,
  type DiscordE2E,
  trailOf,
  isCard,
} from "../../../../test/discord-e2e.ts";

let e: DiscordE2E;
let dm: string;
beforeAll(async () => {
  e = await startDiscordE2E();
  dm = e.fake.dmChannelId(e.ids.alice);
});
afterAll(() => e.close());

async function askAndGetCard(text: string, code: string, answer?: Parameters<typeof toolThenAnswer>[1]) {
  e.h.api.script(toolThenAnswer(code, answer));
  const before = new Set(e.fake.messages(dm).map((m) => m.id));
  e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: text });
  const card = await eventually(() => {
    const c = findCard(e.fake, dm, "notes.write");
    return c && !before.has(c.id) ? c : undefined;
  }, "the approval card");
  return { card, callId: cardCallId(card) };
}

describe("approval cards", () => {
  test("a required action pauses, shows a card, and runs only after Approve; the receipt trail is complete", async () => {
    const { card, callId } = await askAndGetCard(
      "save a note",
      'return await tools.notes.write({ text: "A1" })',
      () => "Saved your note.",
    );
    const embed = card.embeds[0];
    expect(embed.description.startsWith("Write a note (needs approval)\n\n**Input**")).toBe(true);
    expect(embed.description).toContain('text: "A1"');
    expect(embed.fields.find((f: { name: string }) => f.name === "Code").value).toContain("tools.notes.write");
    expect(embed.fields.find((f: { name: string }) => f.name === "Asked by").value).toBe(`<@${e.ids.alice}>`);
    await Bun.sleep(100);
    expect(e.ran.map((r) => r.what)).not.toContain("notes.write:A1");
    expect(botTexts(e.fake, dm).some((t) => t.startsWith("⏸️ Waiting for approval"))).toBe(true);

    const click = e.fake.clickButton({ messageId: card.id, customId: `oa:approve:${callId}`, userId: e.ids.alice });
    const cb = await click.callback();
    expect(cb.type).toBe(6); // DEFERRED_UPDATE: acknowledged before any decision work, the card edited after
    await eventually(() => decisionField(e.fake.message(card.id))?.includes("Approved by"), "the edited card");
    await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith("Saved your note.")), "the answer");
    expect(e.ran.map((r) => r.what)).toContain("notes.write:A1");
    const edited = e.fake.message(card.id)!;
    expect(edited.components).toEqual([]);
    expect(decisionField(edited)).toContain(`Approved by <@${e.ids.alice}>`);

    const trail = (await trailOf(e, callId)).map((r) => r.phase);
    expect(trail).toEqual(["requested", "approved", "started", "succeeded"]);
    const answer = botTexts(e.fake, dm).find((t) => t.startsWith("Saved your note."))!;
    expect(answer).toContain("✅ `notes.write`");
    expect(answer).toMatch(/`r_\w+`/);
  });

  test("a read runs without a card", async () => {
    e.h.api.script(toolThenAnswer("return await tools.notes.read({})", () => "You have one note."));
    const isCard = (m: { embeds?: Array<{ title?: string }> }) =>
      m.embeds?.some((x) => x.title?.startsWith("Approval needed"));
    const cardsBefore = e.fake.messages(dm).filter(isCard).length;
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "read my notes" });
    await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith("You have one note.")), "the answer");
    expect(e.fake.messages(dm).filter(isCard).length).toBe(cardsBefore);
    expect(e.ran.at(-1)!.what).toBe("notes.read");
  });

  test("Deny with reason reaches the model and the summary shows ⛔", async () => {
    let toolResult = "";
    const { card, callId } = await askAndGetCard("save B", 'return await tools.notes.write({ text: "B1" })', (req) => {
      toolResult = lastToolResultText(req);
      return "OK, I did not save it.";
    });
    const click = e.fake.clickButton({ messageId: card.id, customId: `oa:denyr:${callId}`, userId: e.ids.alice });
    const cb = await click.callback();
    expect(cb.type).toBe(9); // MODAL
    const submit = e.fake.submitModal({
      customId: `oa:denym:${callId}`,
      fields: { reason: "wrong notebook, use work" },
      userId: e.ids.alice,
    });
    await submit.callback();
    const answer = await eventually(
      () =>
        e.fake
          .messages(dm)
          .find((m) => m.author?.id === e.fake.botId && String(m.content).startsWith("OK, I did not save it.")),
      "the answer",
    );
    expect(toolResult).toContain("wrong notebook, use work");
    const activity = answer.embeds[0].description as string;
    expect(activity).toContain("⛔ `notes.write` denied by");
    expect(activity).toContain("wrong notebook, use work");
    expect(e.ran.map((r) => r.what)).not.toContain("notes.write:B1");
    expect(decisionField(e.fake.message(card.id))).toContain(
      "Denied by <@" + e.ids.alice + '>: "wrong notebook, use work"',
    );
  });

  test("an unauthorized click is refused privately and changes nothing; a duplicate click does nothing", async () => {
    const { card, callId } = await askAndGetCard(
      "save C",
      'return await tools.notes.write({ text: "C1" })',
      () => "Saved C.",
    );
    for (const userId of [e.ids.bob, e.ids.mallory]) {
      const click = e.fake.clickButton({ messageId: card.id, customId: `oa:approve:${callId}`, userId });
      const cb = await click.callback();
      expect(cb.type).toBe(6); // acknowledged first; the card is not touched
      const note = await eventually(() => click.followUps().at(-1), "the private refusal");
      expect(note.flags & 64).toBe(64); // ephemeral
      expect(note.content).toContain("not allowed to decide approvals");
    }
    expect((await e.h.gateway.approvals.get(callId))!.status).toBe("pending");
    expect(e.fake.message(card.id)!.components.length).toBe(1);
    expect(e.ran.map((r) => r.what)).not.toContain("notes.write:C1");

    const first = e.fake.clickButton({ messageId: card.id, customId: `oa:deny:${callId}`, userId: e.ids.alice });
    const again = e.fake.clickButton({
      messageId: card.id,
      customId: `oa:approve:${callId}`,
      userId: e.ids.alice,
      force: true,
    });
    await first.callback();
    await again.callback();
    await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith("Saved C.")), "the answer");
    expect((await e.h.gateway.approvals.get(callId))!.decision!.decision).toBe("denied");
    expect(e.ran.map((r) => r.what)).not.toContain("notes.write:C1");
    const phases = (await trailOf(e, callId)).map((r) => r.phase);
    expect(phases.filter((p) => p === "approved" || p === "denied")).toEqual(["denied"]);
    expect(await eventually(() => again.followUps().at(-1)?.content, "the follow-up")).toContain("already denied");
    expect(decisionField(e.fake.message(card.id))).toContain("Denied by");
  });

  test("a click on an unknown call id or another app's button never crashes", async () => {
    const msg = e.fake.messages(dm).find((m) => isCard(m))!;
    const unknown = e.fake.clickButton({
      messageId: msg.id,
      customId: "oa:approve:call_does_not_exist",
      userId: e.ids.alice,
      force: true,
    });
    await unknown.callback();
    expect(await eventually(() => unknown.followUps().at(-1)?.content, "the private note")).toContain("unknown");
    e.h.api.script([textTurn("still alive")]);
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "ping" });
    await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith("still alive")), "a later answer");
  });
});

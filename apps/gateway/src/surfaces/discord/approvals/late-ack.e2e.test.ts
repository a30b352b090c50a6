import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import {
  cardCallId,
  decisionField,
  eventually,
  findCard,
  startDiscordE2E,
  toolThenAnswer,
  botTexts,
  type DiscordE2E,
} from "../../../../test/discord-e2e.ts";

setDefaultTimeout(20_000);
let e: DiscordE2E;
beforeAll(async () => {
  // Every acknowledgement arrives "after Discord's window" (as when the process stalls for 3 s).
  e = await startDiscordE2E({ fake: { interactionAckTimeoutMs: -1 } });
}, 30_000);
afterAll(() => e?.close(), 30_000);

test("a click whose acknowledgement came too late still decides; the card is edited through the channel", async () => {
  const dm = e.fake.dmChannelId(e.ids.alice);
  e.h.api.script(toolThenAnswer('return await tools.notes.write({ text: "late" })', () => "late but done"));
  e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "save late" });
  const card = await eventually(() => findCard(e.fake, dm, "notes.write"), "the card");
  e.fake.expectErrors({ code: 10062, times: 1 }); // the late acknowledgement itself
  const click = e.fake.clickButton({
    messageId: card.id,
    customId: `oa:approve:${cardCallId(card)}`,
    userId: e.ids.alice,
  });
  expect((await click.callback()).error).toBe("Unknown interaction");
  await eventually(() => e.ran.find((r) => r.what === "notes.write:late"), "the tool to run");
  expect(await eventually(() => decisionField(e.fake.message(card.id)), "the card edited")).toContain("Approved by");
  await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith("late but done")), "the answer");
});

test("a late-acknowledged click by a member who is not an approver decides nothing", async () => {
  e.h.api.script(toolThenAnswer('return await tools.notes.write({ text: "late guild" })', () => "guild done"));
  const msg = e.fake.sendUserMessage({
    channelId: e.ids.channelId,
    authorId: e.ids.bob,
    content: "save late guild",
    mentionsBot: true,
  });
  const thread = await e.fake
    .waitFor({ method: "POST", path: `/channels/${e.ids.channelId}/messages/${msg.id}/threads` })
    .then((c) => c.response.id as string);
  const card = await eventually(() => findCard(e.fake, thread, "notes.write"), "the card in the conversation's thread");
  const callId = cardCallId(card);
  e.fake.expectErrors({ code: 10062, times: 1 });
  const click = e.fake.clickButton({ messageId: card.id, customId: `oa:approve:${callId}`, userId: e.ids.bob });
  expect((await click.callback()).error).toBe("Unknown interaction");
  // The guild click's approver check needs no lookup: once the failed acknowledgement is logged, it has been judged.
  await eventually(() => e.logs.find((l) => l.includes(`acknowledging click ${click.id}`)), "the late click handled");
  expect((await e.h.gateway.approvals.get(callId))!.status).toBe("pending");
  expect((await e.h.gateway.receipts.query({ callId })).map((r) => r.phase)).toEqual(["requested"]);

  e.fake.expectErrors({ code: 10062, times: 1 });
  const deny = e.fake.clickButton({ messageId: card.id, customId: `oa:deny:${callId}`, userId: e.ids.alice });
  expect((await deny.callback()).error).toBe("Unknown interaction");
  expect(await eventually(() => decisionField(e.fake.message(card.id)), "the card edited")).toContain("Denied by");
  expect((await e.h.gateway.receipts.query({ callId, phase: "denied" })).map((r) => r.decidedBy)).toEqual([
    `discord:${e.ids.alice}`,
  ]);
  expect(e.ran.find((r) => r.what === "notes.write:late guild")).toBeUndefined();
});

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
} from "./e2e-harness.ts";

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

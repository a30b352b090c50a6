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
} from "../../../../test/discord-e2e.ts";

let e: DiscordE2E;
let dm: string;
beforeAll(async () => {
  e = await startDiscordE2E({ settings: { approvalTimeoutMs: 400 } });
  dm = e.fake.dmChannelId(e.ids.alice);
});
afterAll(() => e.close());

describe("expiry", () => {
  test("an unanswered card expires to denied and says so; a late click changes nothing", async () => {
    e.h.api.script(toolThenAnswer('return await tools.notes.write({ text: "T1" })', () => "It timed out."));
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "save T1" });
    const card = await eventually(() => findCard(e.fake, dm, "notes.write"), "the card");
    const callId = cardCallId(card);
    await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith("It timed out.")), "the answer");
    const edited = await eventually(() => {
      const m = e.fake.message(card.id)!;
      return m.components.length === 0 && m;
    }, "the card to be edited");
    expect(decisionField(edited)).toContain("Expired");
    expect((await e.h.gateway.approvals.get(callId))!.decision!.by).toBe("timeout");

    const late = e.fake.clickButton({
      messageId: card.id,
      customId: `oa:approve:${callId}`,
      userId: e.ids.alice,
      force: true,
    });
    await late.callback();
    expect(await eventually(() => late.followUps().at(-1)?.content, "the follow-up")).toContain("expired");
    expect(e.ran.map((r) => r.what)).not.toContain("notes.write:T1");
  });
});

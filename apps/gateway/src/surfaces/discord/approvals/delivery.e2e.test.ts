import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import {
  botTexts,
  cardCallId,
  decisionField,
  eventually,
  findCard,
  lastToolResultText,
  startDiscordE2E,
  threadNow,
  threadOf,
  writeTurn,
  type DiscordE2E,
} from "../../../../test/discord-e2e.ts";

// Under load (other suites on a 2-core machine) a turn with a card can take seconds; the bounds are generous, not speed claims.
setDefaultTimeout(20_000);
let e: DiscordE2E;
let approvalsChannel: string;
beforeAll(async () => {
  e = await startDiscordE2E({
    // Long enough that only an immediate denial can end these requests within a test.
    settings: { approvalTimeoutMs: 120_000 },
    setup(fake, ids) {
      approvalsChannel = fake.createChannel({ guildId: ids.guildId, name: "approvals" }).id as string;
      return {};
    },
  });
}, 30_000); // a busy machine can take seconds to start the sandbox pool and connect
afterAll(() => e?.close(), 30_000);

describe("an approval card nobody can receive ends at once, visibly", () => {
  test("thread deleted and the approver's DMs closed: denied at once with the reason; the model is told", async () => {
    e.fake.expectErrors({ code: 10003 }); // the deleted thread: the card, status edits and answer cannot go there
    let msgId = "";
    e.h.api.script(
      writeTurn("lost", () => {
        e.fake.deleteChannel(threadNow(e, msgId));
        e.fake.setDmsClosed(e.ids.alice);
      }),
    );
    msgId = e.fake.sendUserMessage({
      channelId: e.ids.channelId,
      authorId: e.ids.bob,
      content: "save lost",
      mentionsBot: true,
    }).id;
    const toolResult = await eventually(
      () =>
        e.h.api
          .messageRequests()
          .map(lastToolResultText)
          .find((t) => t.includes("no approver could be shown")),
      "the denial sent to the model",
    );
    expect(toolResult).toContain("no longer exists");
    expect(toolResult).toContain("does not accept DMs");
    expect(await e.h.gateway.approvals.pending()).toEqual([]);
    expect(e.ran.map((r) => r.what)).not.toContain("notes.write:lost");
    e.fake.setDmsClosed(e.ids.alice, false);
  });

  test("closed DMs: a non-approver's DM card is closed with the reason and the answer shows the denial", async () => {
    const bobDm = e.fake.dmChannelId(e.ids.bob);
    e.h.api.script(writeTurn("dm-closed", () => e.fake.setDmsClosed(e.ids.alice)));
    e.fake.sendUserMessage({ dmFrom: e.ids.bob, content: "save dm-closed" });
    const card = await eventually(
      () =>
        findCard(e.fake, bobDm, "notes.write") ??
        e.fake.messages(bobDm).find((m) => m.embeds?.[0]?.title === "Approval needed: notes.write"),
      "the card in Bob's DM",
    );
    expect(await eventually(() => decisionField(e.fake.message(card.id)), "the closed card")).toContain(
      "no approver could be shown",
    );
    const answer = await eventually(
      () => botTexts(e.fake, bobDm).find((t) => t.startsWith("tool said:")),
      "the answer",
    );
    expect(answer).toContain("⛔");
    expect(answer).toContain("no approver could be shown");
    e.fake.setDmsClosed(e.ids.alice, false);
  });

  test("missing permission in the thread: the card goes to the approver by DM and to discord.approvalsChannel; a click there decides", async () => {
    // discord.approvalsChannel, for this test only (the surface reads its config object when posting).
    (e.config as { approvalsChannel?: string }).approvalsChannel = approvalsChannel;
    let msgId = "";
    e.h.api.script(writeTurn("perm", () => e.fake.setMissingPermission(threadNow(e, msgId))));
    msgId = e.fake.sendUserMessage({
      channelId: e.ids.channelId,
      authorId: e.ids.alice,
      content: "save perm",
      mentionsBot: true,
    }).id;
    const thread = await threadOf(e, msgId);
    const inChannel = await eventually(
      () => findCard(e.fake, approvalsChannel, "notes.write"),
      "the card in the approvals channel",
    );
    const inDm = await eventually(
      () => findCard(e.fake, e.fake.dmChannelId(e.ids.alice), "notes.write"),
      "the fallback DM copy",
    );
    expect(cardCallId(inDm)).toBe(cardCallId(inChannel));
    await e.fake
      .clickButton({ messageId: inChannel.id, customId: `oa:approve:${cardCallId(inChannel)}`, userId: e.ids.alice })
      .callback();
    await eventually(() => e.ran.find((r) => r.what === "notes.write:perm"), "the tool to run");
    await eventually(() => decisionField(e.fake.message(inDm.id))?.includes("Approved"), "the DM copy edited");
    e.fake.setMissingPermission(thread, false);
    delete (e.config as { approvalsChannel?: string }).approvalsChannel;
  });
});

import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import {
  botTexts,
  cardCallId,
  markerModel,
  decisionField,
  eventually,
  findCard,
  startDiscordE2E,
  threadNow,
  threadOf,
  writeTurn,
  type DiscordE2E,
} from "../../../../test/discord-e2e.ts";

// Under load (other suites on a 2-core machine) a turn with a card can take seconds; the bounds are generous, not speed claims.
setDefaultTimeout(20_000);
let e: DiscordE2E;
beforeAll(async () => {
  // Long enough that only a decision can end these requests within a test.
  e = await startDiscordE2E({ settings: { approvalTimeoutMs: 120_000 } });
}, 30_000); // a busy machine can take seconds to start the sandbox pool and connect
afterAll(() => e?.close(), 30_000);

describe("/approvals", () => {
  test("works in a DM: lists pending approvals with buttons; a button decides and the list is refreshed", async () => {
    const bobDm = e.fake.dmChannelId(e.ids.bob);
    // Two conversations at once: a model that answers each by its own marker.
    e.h.api.script([markerModel, markerModel, markerModel, markerModel]);
    e.fake.sendUserMessage({ dmFrom: e.ids.bob, content: "please save job-1" });
    const pendingWith = async (marker: string) =>
      (await e.h.gateway.approvals.pending()).find((r) => r.inputPreview.includes(marker));
    await eventually(() => pendingWith("job-1"), "job-1 pending");
    e.fake.sendUserMessage({
      channelId: e.ids.channelId,
      authorId: e.ids.bob,
      content: "please save job-2",
      mentionsBot: true,
    });
    await eventually(() => pendingWith("job-2"), "job-2 pending");
    const count = (await e.h.gateway.approvals.pending()).length;

    // Registered for DMs: a global command with the BOT_DM context.
    expect(e.fake.commands().find((c) => c.name === "approvals")?.contexts).toEqual([1]);
    const list = e.fake.runSlashCommand({
      name: "approvals",
      userId: e.ids.alice,
      channelId: e.fake.dmChannelId(e.ids.alice),
    });
    expect((await list.callback()).type).toBe(4);
    const shown = list.original()!;
    expect(shown.flags & 64).toBe(64);
    expect(shown.content).toContain(`Pending approvals** (${count})`);
    expect(shown.components).toHaveLength(Math.min(count, 5));
    const job1 = (await pendingWith("job-1"))!;
    const firstButton = shown.components
      .map((r: { components: Array<{ custom_id: string }> }) => r.components[0]!)
      .find((b: { custom_id: string }) => b.custom_id.endsWith(job1.callId));
    expect(firstButton.custom_id).toStartWith("oa:lapprove:");

    const click = e.fake.clickButton({ messageId: shown.id, customId: firstButton.custom_id, userId: e.ids.alice });
    expect((await click.callback()).type).toBe(6);
    await eventually(() => e.ran.find((r) => r.what === "notes.write:job-1"), "the first tool to run");
    await eventually(
      () => e.fake.message(shown.id)?.content.includes(`Pending approvals** (${count - 1})`),
      "the refreshed list",
    );
    expect(await eventually(() => click.followUps().at(-1)?.content, "the note")).toContain("Approved");
    await eventually(() => botTexts(e.fake, bobDm).find((t) => t.startsWith("result for job-1: ok")), "Bob's answer");

    // A non-approver cannot list them.
    const refused = e.fake.runSlashCommand({ name: "approvals", userId: e.ids.bob, channelId: bobDm });
    await refused.callback();
    // In a DM the command is acknowledged before the member lookup; the refusal is the edit that follows.
    expect(await eventually(() => refused.original()?.content, "the refusal")).toContain("approvers only");
    await e.h.gateway.approvals.decide((await pendingWith("job-2"))!.callId, { decision: "denied", by: "test" });
    const bobThread = threadNow(
      e,
      e.fake
        .messages(e.ids.channelId)
        .filter((m) => m.content.includes("job-2"))
        .at(-1)!.id,
    );
    await eventually(
      () => botTexts(e.fake, bobThread).find((t) => t.startsWith("result for job-2")),
      "the second conversation to end",
    );
  });
});

describe("a card in an archived thread", () => {
  test("a click is acknowledged, decides, and the card is updated (the thread is unarchived)", async () => {
    const msg = e.fake.sendUserMessage({
      channelId: e.ids.channelId,
      authorId: e.ids.alice,
      content: "save archived",
      mentionsBot: true,
    });
    e.h.api.script(writeTurn("archived", () => {}));
    const thread = await threadOf(e, msg.id);
    const card = await eventually(() => findCard(e.fake, thread, "notes.write"), "the card");
    // Let the status message settle first, so no edit races the moderator's archive.
    await eventually(
      () => botTexts(e.fake, thread).some((t) => t.startsWith("⏸️ Waiting for approval")),
      "the waiting status",
    );
    e.fake.archiveThread(thread);
    await eventually(
      () =>
        e.surface.client.channels.cache.get(thread)?.isThread() &&
        (e.surface.client.channels.cache.get(thread) as { archived?: boolean }).archived,
      "the client to see the archive",
    );
    const click = e.fake.clickButton({
      messageId: card.id,
      customId: `oa:approve:${cardCallId(card)}`,
      userId: e.ids.alice,
    });
    expect((await click.callback()).type).toBe(6);
    await eventually(() => e.ran.find((r) => r.what === "notes.write:archived"), "the tool to run");
    expect(await eventually(() => decisionField(e.fake.message(card.id)), "the edited card")).toContain("Approved by");
    expect(e.fake.channel(thread)!.thread_metadata.archived).toBe(false);
  });

  test("in a locked thread the clicker is told clearly; the decision still counts", async () => {
    e.h.api.script(writeTurn("locked", () => {}));
    const msg = e.fake.sendUserMessage({
      channelId: e.ids.channelId,
      authorId: e.ids.alice,
      content: "save locked",
      mentionsBot: true,
    });
    const thread = await threadOf(e, msg.id);
    const card = await eventually(() => findCard(e.fake, thread, "notes.write"), "the card");
    await eventually(
      () => botTexts(e.fake, thread).some((t) => t.startsWith("⏸️ Waiting for approval")),
      "the waiting status",
    );
    e.fake.expectErrors({ code: 50083 }); // the answer cannot be posted in a locked thread
    e.fake.archiveThread(thread, { locked: true });
    await eventually(
      () => (e.surface.client.channels.cache.get(thread) as { locked?: boolean } | undefined)?.locked,
      "the client to see the lock",
    );
    const click = e.fake.clickButton({
      messageId: card.id,
      customId: `oa:approve:${cardCallId(card)}`,
      userId: e.ids.alice,
    });
    expect((await click.callback()).type).toBe(6);
    expect(await eventually(() => click.followUps().at(-1)?.content, "the note")).toContain("locked thread");
    await eventually(() => e.ran.find((r) => r.what === "notes.write:locked"), "the tool to run");
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { textTurn } from "@openassistant/testkit";
import { botTexts, eventually, startDiscordE2E, type DiscordE2E } from "../../../../test/discord-e2e.ts";

let e: DiscordE2E;
beforeAll(async () => {
  e = await startDiscordE2E();
});
afterAll(() => e.close());

describe("threads", () => {
  test("a mention opens a thread named from the request; the conversation continues there without mentions", async () => {
    e.h.api.script([textTurn("Planning it now.")]);
    const msg = e.fake.sendUserMessage({
      channelId: e.ids.channelId,
      authorId: e.ids.alice,
      content: "plan the team offsite\nwith details",
      mentionsBot: true,
    });
    const call = await e.fake.waitFor({
      method: "POST",
      path: `/channels/${e.ids.channelId}/messages/${msg.id}/threads`,
    });
    const threadId = call.response.id as string;
    expect(call.body.name).toBe("plan the team offsite");
    expect(e.fake.channel(threadId)!.type).toBe(11); // public thread
    await eventually(
      () => botTexts(e.fake, threadId).find((t) => t.startsWith("Planning it now.")),
      "the answer in the thread",
    );
    expect(botTexts(e.fake, e.ids.channelId)).toEqual([]);

    e.h.api.script([textTurn("Added the details.")]);
    e.fake.sendUserMessage({ channelId: threadId, authorId: e.ids.alice, content: "also book a room" });
    await eventually(
      () => botTexts(e.fake, threadId).find((t) => t.startsWith("Added the details.")),
      "the follow-up answer",
    );
    const body = JSON.stringify(e.h.api.messageRequests().at(-1)!.body.messages);
    expect(body).toContain("plan the team offsite");
    expect(body).toContain("also book a room");
  });

  test("two mentions open two separate conversations", async () => {
    e.h.api.script([textTurn("First."), textTurn("Second.")]);
    e.fake.sendUserMessage({
      channelId: e.ids.channelId,
      authorId: e.ids.alice,
      content: "topic one",
      mentionsBot: true,
    });
    await eventually(() => e.h.api.remaining() === 1, "first turn");
    e.fake.sendUserMessage({
      channelId: e.ids.channelId,
      authorId: e.ids.bob,
      content: "topic two",
      mentionsBot: true,
    });
    await eventually(() => e.h.api.remaining() === 0 && e.h.api.messageRequests().length >= 4, "second turn");
    const last = JSON.stringify(e.h.api.messageRequests().at(-1)!.body.messages);
    expect(last).toContain("topic two");
    expect(last).not.toContain("topic one");
  });

  test("messages without a mention in a channel are ignored; a mention from a stranger is refused privately", async () => {
    const requests = e.h.api.messageRequests().length;
    e.fake.sendUserMessage({ channelId: e.ids.channelId, authorId: e.ids.alice, content: "just chatting" });
    e.fake.sendUserMessage({
      channelId: e.ids.channelId,
      authorId: e.ids.mallory,
      content: "hey bot",
      mentionsBot: true,
    });
    const mdm = e.fake.dmChannelId(e.ids.mallory);
    await eventually(() => botTexts(e.fake, mdm).find((t) => t.startsWith("Sorry")), "a private refusal");
    await Bun.sleep(100);
    expect(e.h.api.messageRequests().length).toBe(requests);
    expect(botTexts(e.fake, e.ids.channelId)).toEqual([]);
  });
});

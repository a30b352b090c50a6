import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { textTurn } from "@openassistant/testkit";
import {
  botTexts,
  cardCallId,
  eventually,
  findCard,
  startDiscordE2E,
  toolThenAnswer,
  type DiscordE2E,
} from "../../../test/discord-e2e.ts";

let e: DiscordE2E;
let dm: string;
beforeAll(async () => {
  e = await startDiscordE2E();
  dm = e.fake.dmChannelId(e.ids.alice);
});
afterAll(() => e.close());

describe("robustness", () => {
  test("a dropped gateway connection resumes and messages keep flowing", async () => {
    const since = e.fake.frames.length;
    expect(e.fake.dropConnection()).toBeGreaterThan(0);
    const resume = await e.fake.waitForFrame((f) => f.index >= since && f.direction === "in" && f.op === 6, 8000);
    expect(resume.op).toBe(6); // RESUME, not a new IDENTIFY
    e.h.api.script([textTurn("back online")]);
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "are you there?" });
    await eventually(
      () => botTexts(e.fake, dm).find((t) => t.startsWith("back online")),
      "an answer after resume",
      8000,
    );
  });

  test("a 429 is waited out: the rejected request is retried and every message still arrives", async () => {
    const path = new RegExp(`^/channels/${dm}/messages$`);
    const since = e.fake.calls.length;
    e.fake.rateLimitNext({ method: "POST", path }, { retryAfter: 0.3 });
    e.h.api.script([textTurn("after the rate limit")]);
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "hello again" });
    await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith("after the rate limit")), "the answer", 8000);
    const posts = e.fake.calls.filter((c) => c.index >= since && c.method === "POST" && path.test(c.path));
    const limited = posts.find((c) => c.rateLimited)!;
    expect(limited).toBeDefined();
    await eventually(
      () =>
        e.fake.calls.find(
          (c) =>
            c.index > limited.index &&
            c.status === 200 &&
            c.method === "POST" &&
            path.test(c.path) &&
            JSON.stringify(c.body) === JSON.stringify(limited.body),
        ),
      "the retried request",
      8000,
    );
    const retry = e.fake.calls.find(
      (c) =>
        c.index > limited.index &&
        c.status === 200 &&
        c.method === "POST" &&
        path.test(c.path) &&
        JSON.stringify(c.body) === JSON.stringify(limited.body),
    )!;
    expect(retry.time - limited.time).toBeGreaterThanOrEqual(250);
  });

  test("a deleted card message or a deleted channel never crashes the surface", async () => {
    e.h.api.script(toolThenAnswer('return await tools.notes.write({ text: "D1" })', () => "handled"));
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "save D1" });
    const card = await eventually(() => findCard(e.fake, dm, "notes.write"), "the card");
    const callId = cardCallId(card);
    // The operator deletes the card; the decision (by /approve) still works and the failed edit is only logged.
    e.fake.expectErrors({ method: "PATCH", code: 10008, times: 1 });
    await fetch(`${e.fake.apiUrl}/v10/channels/${dm}/messages/${card.id}`, {
      method: "DELETE",
      headers: { authorization: `Bot ${e.fake.token}` },
    });
    const r = await e.h.gateway.approvals.decide(callId, { decision: "approved", by: "discord:" + e.ids.alice });
    expect(r.outcome).toBe("decided");
    await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith("handled")), "the answer");
    await eventually(
      () => e.logs.find((l) => l.includes(`editing approval card ${callId}`)),
      "the logged edit failure",
    );
    // A whole conversation thread is deleted while its card is pending: edits and the answer fail, are logged, nothing crashes.
    e.fake.expectErrors({ code: 10003 });
    e.h.api.script(toolThenAnswer('return await tools.notes.write({ text: "D2" })', () => "lost answer"));
    const msg = e.fake.sendUserMessage({
      channelId: e.ids.channelId,
      authorId: e.ids.alice,
      content: "save D2",
      mentionsBot: true,
    });
    const thread = (
      await e.fake.waitFor({ method: "POST", path: `/channels/${e.ids.channelId}/messages/${msg.id}/threads` })
    ).response.id as string;
    const card2 = await eventually(() => findCard(e.fake, thread, "notes.write"), "the card in the thread");
    await fetch(`${e.fake.apiUrl}/v10/channels/${thread}`, {
      method: "DELETE",
      headers: { authorization: `Bot ${e.fake.token}` },
    });
    await e.h.gateway.approvals.decide(cardCallId(card2), { decision: "denied", by: `discord:${e.ids.alice}` });
    // Wait for the thread's turn to finish (its answer fails to send) before scripting the next
    // model turn, so the two conversations cannot take each other's scripted responses.
    await eventually(
      () => e.logs.find((l) => l.includes(`sending the answer in ${thread}`)),
      "the logged answer failure",
    );
    e.h.api.script([textTurn("still fine")]);
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "ok?" });
    await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith("still fine")), "a later answer");
  });

  test("stop() is clean: a turn waiting for approval is closed, the client disconnects, no more answers", async () => {
    e.h.api.script(toolThenAnswer('return await tools.notes.write({ text: "S1" })', () => "should not be sent"));
    const before = new Set(e.fake.messages(dm).map((m) => m.id));
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "save S1" });
    const card = await eventually(() => {
      const c = findCard(e.fake, dm, "notes.write");
      return c && !before.has(c.id) ? c : undefined;
    }, "the card");
    const callId = cardCallId(card);
    await e.surface.stop();
    expect(e.fake.connectedSessions).toBe(0);
    // The pending approval ended as a denial and the tool never ran.
    expect((await e.h.gateway.approvals.get(callId))!.status).not.toBe("pending");
    expect((await e.h.gateway.receipts.query({ callId })).map((r) => r.phase)).toEqual(["requested", "denied"]);
    expect(e.ran.map((r) => r.what)).not.toContain("notes.write:S1");
    await e.surface.stop(); // idempotent

    const requests = e.h.api.messageRequests().length;
    const botMessages = botTexts(e.fake, dm).length;
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "anyone there?" });
    await Bun.sleep(300); // nothing may happen; waiting longer only makes the check stricter
    expect(e.h.api.messageRequests().length).toBe(requests);
    expect(botTexts(e.fake, dm).length).toBe(botMessages);
    expect(botTexts(e.fake, dm).some((t) => t.startsWith("should not be sent"))).toBe(false);
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  cardCallId,
  eventually,
  findCard,
  markerModel,
  messageText,
  startDiscordE2E,
  type DiscordE2E,
  trailOf,
} from "../../../../test/discord-e2e.ts";

const N = 20;

/** Bounds for each wait: ample for N turns on a busy 2-core machine, well inside the test's timeout. */
const WAIT_MS = 30_000;

let e: DiscordE2E;
beforeAll(async () => {
  e = await startDiscordE2E();
}, 30_000);
afterAll(() => e.close(), 30_000);

describe("many conversations", () => {
  test(`${N} conversations in parallel with approvals: no receipt lost or crossed`, async () => {
    e.h.api.script(Array.from({ length: N * 2 }, () => markerModel));
    const threads: string[] = [];
    const msgs = Array.from({ length: N }, (_, i) =>
      e.fake.sendUserMessage({
        channelId: e.ids.channelId,
        authorId: i % 2 ? e.ids.bob : e.ids.alice,
        content: `please save job-${i}`,
        mentionsBot: true,
      }),
    );
    for (const [i, m] of msgs.entries()) {
      const call = await e.fake.waitFor(
        { method: "POST", path: `/channels/${e.ids.channelId}/messages/${m.id}/threads` },
        WAIT_MS,
      );
      threads[i] = call.response.id;
    }
    // Each card appears in its own thread, for its own marker; approve them all at once.
    const cards = await Promise.all(
      threads.map((t) => eventually(() => findCard(e.fake, t, "notes.write"), `card in ${t}`, WAIT_MS)),
    );
    cards.forEach((card, i) => expect(card.embeds[0].fields[0].value).toContain(`job-${i}`));
    const clicks = cards.map((card) =>
      e.fake.clickButton({ messageId: card.id, customId: `oa:approve:${cardCallId(card)}`, userId: e.ids.alice }),
    );
    await Promise.all(clicks.map((c) => c.callback(WAIT_MS)));

    const answers = await Promise.all(
      threads.map((t, i) =>
        eventually(
          () => e.fake.messages(t).find((m) => (m.content as string).startsWith(`result for job-${i}:`)),
          `answer ${i}`,
          WAIT_MS,
        ),
      ),
    );
    for (const [i, a] of answers.entries()) {
      expect(a.content).toContain(`result for job-${i}: ok`);
      const callId = cardCallId(cards[i]!);
      const receipts = await trailOf(e, callId);
      expect(receipts.map((r) => r.phase)).toEqual(["requested", "approved", "started", "succeeded"]);
      expect(receipts[0]!.inputPreview).toContain(`job-${i}`);
      // The summary under the answer cites this conversation's own receipt, nobody else's.
      expect(messageText(a)).toContain(receipts.at(-1)!.id);
      for (const [j, other] of cards.entries()) if (j !== i) expect(messageText(a)).not.toContain(cardCallId(other));
    }
    expect(
      e.ran
        .filter((r) => r.what.startsWith("notes.write:job-"))
        .map((r) => r.what)
        .sort(),
    ).toEqual(Array.from({ length: N }, (_, i) => `notes.write:job-${i}`).sort());
  }, 120_000);
});

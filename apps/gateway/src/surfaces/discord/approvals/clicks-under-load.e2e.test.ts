/**
 * Acknowledgements never wait behind turn work. Many conversations run turns with tool calls at
 * once (sandbox runs, typechecks, receipts, model rounds) while people click their cards; the fake
 * Discord, like the real one, refuses any acknowledgement later than 3 s after it dispatched the
 * click ("This interaction failed"). Every click must be acknowledged, and every turn must finish.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { FakeInteraction } from "@openassistant/testkit";
import {
  cardCallId,
  eventually,
  findCard,
  busyWorkModel,
  startDiscordE2E,
  threadOf,
  type DiscordE2E,
} from "../../../../test/discord-e2e.ts";

const N = 12;
/** Waits here are for work on a busy 2-core machine, bounded well inside the test's timeout. */
const WAIT_MS = 45_000;

let e: DiscordE2E;
beforeAll(async () => {
  // Discord's own heartbeat interval (41.25 s), not the harness's 250 ms: on a loaded machine a
  // 250 ms heartbeat misses its ack, discord.js reconnects and resumes, and replayed events (clicks
  // among them) arrive seconds late; real Discord never asks for heartbeats that often.
  e = await startDiscordE2E({ fake: { heartbeatIntervalMs: 41_250 } });
}, 30_000);
afterAll(() => e?.close(), 30_000);

test(`${N} conversations at once with tool calls: every card click is acknowledged within Discord's window`, async () => {
  e.h.api.script(Array.from({ length: N * 5 }, () => busyWorkModel));
  const msgs = Array.from({ length: N }, (_, i) =>
    e.fake.sendUserMessage({
      channelId: e.ids.channelId,
      authorId: i % 2 ? e.ids.bob : e.ids.alice,
      content: `please do job-${i}`,
      mentionsBot: true,
    }),
  );
  const threads = await Promise.all(msgs.map((m) => threadOf(e, m.id, WAIT_MS)));
  const clicks: FakeInteraction[] = [];
  // Each card is clicked the moment it appears, while the other conversations are still working:
  // first by bob (not an approver: refused), then approved by alice.
  await Promise.all(
    threads.map(async (thread) => {
      const card = await eventually(() => findCard(e.fake, thread, "notes.write"), `the card in ${thread}`, WAIT_MS);
      const callId = cardCallId(card);
      const refused = e.fake.clickButton({ messageId: card.id, customId: `oa:approve:${callId}`, userId: e.ids.bob });
      clicks.push(refused);
      await refused.callback(WAIT_MS);
      const approved = e.fake.clickButton({
        messageId: card.id,
        customId: `oa:approve:${callId}`,
        userId: e.ids.alice,
      });
      clicks.push(approved);
      await approved.callback(WAIT_MS);
    }),
  );
  const answers = await Promise.all(
    threads.map((t, i) =>
      eventually(
        () => e.fake.messages(t).find((m) => String(m.content).startsWith(`saved job-${i}:`)),
        `the answer in ${t}`,
        WAIT_MS,
      ),
    ),
  );
  answers.forEach((a, i) => expect(a.content).toContain(`saved job-${i}: ok`));
  expect(clicks).toHaveLength(2 * N);
  // The first answer to every click was accepted: none came after the 3 s window.
  const late = clicks.filter((c) => !c.callbacks[0]?.accepted).map((c) => c.callbacks[0]);
  expect(late).toEqual([]);
  expect(e.ran.filter((r) => r.what.startsWith("notes.write:")).length).toBe(N);
}, 120_000);

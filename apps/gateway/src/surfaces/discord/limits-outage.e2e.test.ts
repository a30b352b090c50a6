import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startFakeDiscord, textTurn, toolUseTurn } from "@openassistant/testkit";
import { startHarness } from "../../../test/harness.ts";
import { DiscordStartError } from "./discord-errors.ts";
import {
  botTexts,
  cardCallId,
  eventually,
  findCard,
  startDiscordE2E,
  trailOf,
  type DiscordE2E,
} from "../../../test/discord-e2e.ts";
import { startDiscordSurface } from "./index.ts";

const APPROVERS = 50;
// Under load (other suites on a 2-core machine) a turn with a card can take seconds; the bounds are generous, not speed claims.
setDefaultTimeout(20_000);
let e: DiscordE2E;
let approvers: string[] = [];
beforeAll(async () => {
  e = await startDiscordE2E({
    settings: { approvalTimeoutMs: 120_000 },
    setup(fake, ids) {
      approvers = Array.from(
        { length: APPROVERS },
        (_, n) => fake.createUser({ username: `approver${n}` }).id as string,
      );
      for (const userId of approvers) fake.addMember({ guildId: ids.guildId, userId });
      return { approvers: [ids.alice, ...approvers] };
    },
  });
}, 30_000); // a busy machine can take seconds to start the sandbox pool and connect
afterAll(() => e?.close(), 30_000);

const FAMILY = "👨‍👩‍👧‍👦"; // one grapheme, 11 UTF-16 units

describe("what we send always fits Discord's limits", () => {
  test("emoji-heavy 4,000-character input: thread name, card, answer and /approve echo are all accepted", async () => {
    const long = `${FAMILY}é\u0301`.repeat(285); // 3,990 UTF-16 units of emoji and combining marks
    const code = `return await tools.notes.write({ text: ${JSON.stringify(long)} })`;
    e.h.api.script([
      toolUseTurn({ id: "toolu_emoji", name: "execute", input: { code } }),
      textTurn(`${long}\n${long}`),
    ]);
    // A message is at most 2,000 characters (4,000 with Nitro); the tool input and the answer carry all 4,000.
    const msg = e.fake.sendUserMessage({
      channelId: e.ids.channelId,
      authorId: e.ids.alice,
      content: `${FAMILY}é\u0301`.repeat(135),
      mentionsBot: true,
    });
    const thread = (
      await e.fake.waitFor({ method: "POST", path: `/channels/${e.ids.channelId}/messages/${msg.id}/threads` })
    ).response;
    expect(thread.name.length).toBeLessThanOrEqual(100);
    const card = await eventually(() => findCard(e.fake, thread.id, "notes.write"), "the card");
    await e.fake
      .clickButton({ messageId: card.id, customId: `oa:approve:${cardCallId(card)}`, userId: e.ids.alice })
      .callback();
    await eventually(
      () => botTexts(e.fake, thread.id).filter((t) => t.includes(FAMILY)).length >= 3,
      "the long answer, split",
    );
    // Typed /approve with a 4,000-character id and verb: the reply echoes a capped version.
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: `/approve ${FAMILY.repeat(170)} ${FAMILY.repeat(3)}` });
    await eventually(
      () => botTexts(e.fake, e.fake.dmChannelId(e.ids.alice)).find((t) => t.includes("is not approve or deny")),
      "the usage reply",
    );
    expect(e.fake.unexpectedErrors).toEqual([]);
  });

  test(`${APPROVERS} approvers click the same card at once: every click is acknowledged in Discord's window, one decision counts`, async () => {
    const dm = e.fake.dmChannelId(e.ids.alice);
    e.h.api.script([
      toolUseTurn({
        id: "toolu_fifty",
        name: "execute",
        input: { code: 'return await tools.notes.write({ text: "fifty" })' },
      }),
      textTurn("fifty done"),
    ]);
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "save fifty" });
    const card = await eventually(() => findCard(e.fake, dm, "notes.write"), "the card");
    const callId = cardCallId(card);
    const clicks = approvers.map((userId) =>
      e.fake.clickButton({ messageId: card.id, customId: `oa:approve:${callId}`, userId }),
    );
    const callbacks = await Promise.all(clicks.map((c) => c.callback(10_000)));
    for (const cb of callbacks) {
      expect(cb.accepted).toBe(true);
      expect(cb.type).toBe(6);
      expect(cb.latencyMs).toBeLessThan(3000); // Discord's rule, not a speed claim (see bench/discord.bench.ts)
    }
    await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith("fifty done")), "the answer");
    expect((await trailOf(e, callId)).filter((r) => r.phase === "approved")).toHaveLength(1);
  }, 20_000);
});

describe("Discord unreachable", () => {
  test("at start: no network, a bad token and a disabled Message Content intent each fail fast with their own message", async () => {
    const h = await startHarness({ tools: {} });
    try {
      const config = { token: "fake.1.bot-token", allowedUsers: ["1"] };
      const network = await startDiscordSurface(h.gateway, config, {
        restApi: "http://127.0.0.1:1/api",
        log: () => {},
      }).catch((x) => x);
      expect(network).toBeInstanceOf(DiscordStartError);
      expect(network.kind).toBe("network");
      expect(network.exitCode).toBe(69);
      expect(network.message).toContain("cannot reach Discord");

      const fake = await startFakeDiscord({ privilegedIntents: 0 });
      fake.expectErrors({ status: 401 });
      const bad = await startDiscordSurface(
        h.gateway,
        { ...config, token: "wrong.token.x" },
        { restApi: fake.apiUrl, log: () => {} },
      ).catch((x) => x);
      expect(bad.kind).toBe("token");
      expect(bad.message).not.toContain("wrong.token.x");
      const intent = await startDiscordSurface(
        h.gateway,
        { ...config, token: fake.token },
        { restApi: fake.apiUrl, log: () => {} },
      ).catch((x) => x);
      expect(intent.kind).toBe("intent");
      expect(intent.message).toContain("Message Content intent");
      await fake.close();
      fake.assertNoUnexpectedErrors();
    } finally {
      await h.close();
    }
  });

  test("mid-run: the gateway keeps running, says so, and the answer made during the outage is delivered when Discord is back", async () => {
    const dm = e.fake.dmChannelId(e.ids.alice);
    e.h.api.script([
      () => {
        e.fake.setOutage(true);
        setTimeout(() => e.fake.setOutage(false), 1500);
        return textTurn("answer from the outage");
      },
    ]);
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "anything" });
    await eventually(() => e.logs.find((l) => l.includes("Discord connection lost")), "the outage notice");
    await eventually(
      () => botTexts(e.fake, dm).find((t) => t.startsWith("answer from the outage")),
      "the answer after the outage",
      15_000,
    );
    await eventually(() => e.logs.find((l) => l.includes("Discord connection is back")), "the back notice", 10_000);
    expect(e.fake.connectedSessions).toBe(1);
  }, 30_000);
});

/**
 * Unusual users, messages and model output against the real surface: nothing pings, nothing
 * exceeds Discord's limits, nothing is silently dropped, nothing answers where it should not.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { textTurn } from "@openassistant/testkit";
import {
  botTexts,
  cardCallId,
  decisionField,
  eventually,
  findCard,
  startDiscordE2E,
  toolThenAnswer,
  type DiscordE2E,
} from "../../../test/discord-e2e.ts";

let e: DiscordE2E;
let dm: string;
let roleId: string;
let otherBot: string;
let closedChannel: string;
beforeAll(async () => {
  e = await startDiscordE2E({
    setup: (fake, ids) => {
      roleId = fake.createRole({ guildId: ids.guildId, name: "staff" }).id as string;
      otherBot = fake.createUser({ username: "otherbot", bot: true }).id as string;
      fake.addMember({ guildId: ids.guildId, userId: otherBot });
      closedChannel = fake.createChannel({ guildId: ids.guildId, name: "random" }).id as string;
      return { allowedChannels: [fake.defaults!.channelId] };
    },
  });
  dm = e.fake.dmChannelId(e.ids.alice);
});
afterAll(() => e.close());

// API-shaped JSON from the fake
type Json = Record<string, any>;

/** Every REST call by which the bot creates or edits a message (channels, interaction callbacks, webhooks). */
function messageWrites(since: number): Array<{ path: string; body: Json }> {
  return e.fake.calls
    .filter((c) => c.index >= since && (c.method === "POST" || c.method === "PATCH"))
    .filter(
      (c) =>
        /^\/channels\/\d+\/messages(\/\d+)?$/.test(c.path) ||
        /^\/interactions\//.test(c.path) ||
        /^\/webhooks\//.test(c.path),
    )
    .map((c) => ({ path: c.path, body: (c.body ?? {}) as Json }));
}

/** The message payload of a write: interaction callbacks wrap it in `data`. */
function payloadOf(w: { path: string; body: Json }): Json | null {
  if (w.path.startsWith("/interactions/")) return w.body.type === 4 || w.body.type === 7 ? (w.body.data ?? {}) : null;
  return w.body;
}

const isStatus = (t: string) => /^(💭|⚙️|✅ Done|⏸️|⚠️ Failed)/.test(t);

describe("adversarial input and output", () => {
  test("mentions in model output, tool input and deny reasons never ping: every send and edit carries allowed_mentions with nothing parsed", async () => {
    const since = e.fake.calls.length;
    const evil = `@everyone @here <@&${roleId}> <@${e.ids.bob}> <@!${e.ids.bob}>`;
    e.h.api.script(toolThenAnswer(`return await tools.notes.write({ text: "${evil}" })`, () => `Sure ${evil}`));
    const msg = e.fake.sendUserMessage({
      channelId: e.ids.channelId,
      authorId: e.ids.alice,
      content: `ping ${evil}`,
      mentionsBot: true,
    });
    const thread = (
      await e.fake.waitFor({ method: "POST", path: `/channels/${e.ids.channelId}/messages/${msg.id}/threads` })
    ).response.id as string;
    const card = await eventually(() => findCard(e.fake, thread, "notes.write"), "the card");
    // Deny with a reason full of mentions, through the modal.
    e.fake.clickButton({ messageId: card.id, customId: `oa:denyr:${cardCallId(card)}`, userId: e.ids.alice });
    await eventually(
      () => e.fake.calls.find((c) => c.index >= since && c.path.startsWith("/interactions/") && c.body?.type === 9),
      "the modal",
    );
    e.fake.submitModal({
      customId: `oa:denym:${cardCallId(card)}`,
      fields: { reason: `no ${evil}` },
      userId: e.ids.alice,
    });
    await eventually(() => botTexts(e.fake, thread).find((t) => t.startsWith("Sure")), "the answer");
    await eventually(() => botTexts(e.fake, thread)[0]?.startsWith("✅ Done"), "the final status");
    expect(decisionField(e.fake.message(card.id))).toContain("Denied by");

    const writes = messageWrites(since)
      .map(payloadOf)
      .filter((p): p is Json => p !== null);
    expect(writes.length).toBeGreaterThanOrEqual(5); // status post + edits, card post + update, answer
    for (const p of writes) {
      expect(p.allowed_mentions).toBeDefined();
      expect(p.allowed_mentions.parse ?? []).toEqual([]);
      expect(p.allowed_mentions.users ?? []).toEqual([]);
      expect(p.allowed_mentions.roles ?? []).toEqual([]);
      expect(p.allowed_mentions.replied_user ?? false).toBe(false);
    }
  });

  test("a 10,000-character answer with several fences, one longer than 2000 characters, arrives whole in valid messages", async () => {
    const longFence = Array.from({ length: 70 }, (_, i) => `const v${i} = "${"y".repeat(30)}";`).join("\n"); // ~2800 chars
    const noSpaces = "z".repeat(2600); // one line longer than a message, inside a fence
    const answer = [
      "Intro paragraph.",
      "```ts",
      longFence,
      "```",
      "Middle text with `inline` code.",
      "~~~python",
      noSpaces,
      "~~~",
      "`````md",
      "```inner```",
      "`````",
      "x ".repeat(2000),
      "```",
      "unclosed fence at the end",
    ].join("\n");
    expect(answer.length).toBeGreaterThan(9000);
    e.h.api.script([textTurn(answer)]);
    const before = botTexts(e.fake, dm).length;
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "long please" });
    const parts = await eventually(() => {
      const t = botTexts(e.fake, dm)
        .slice(before)
        .filter((x) => !isStatus(x));
      return t.some((x) => x.includes("unclosed fence at the end")) && t;
    }, "the split answer");
    for (const p of parts) {
      expect(p.length).toBeLessThanOrEqual(2000);
      expect(p.trim().length).toBeGreaterThan(0);
    }
    const joined = parts.join("\n");
    for (let i = 0; i < 70; i++) expect(joined).toContain(`const v${i} = `);
    expect(joined.replace(/[^z]/g, "").length).toBe(2600);
    expect(e.logs.filter((l) => l.includes("sending the answer"))).toEqual([]);
  });

  test("an empty or whitespace-only answer still gets a visible reply (Discord rejects empty messages)", async () => {
    for (const answer of ["   \n\t  ", ""]) {
      e.h.api.script([textTurn(answer)]);
      const before = botTexts(e.fake, dm).length;
      e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: `say nothing ${JSON.stringify(answer)}` });
      // The gateway or the surface (answerMessages) substitutes a visible text; the turn never ends silently.
      const reply = await eventually(
        () =>
          botTexts(e.fake, dm)
            .slice(before)
            .find((t) => !isStatus(t)),
        "a visible answer",
      );
      expect(reply.trim().length).toBeGreaterThan(0);
    }
    expect(e.logs.filter((l) => l.includes("sending the answer"))).toEqual([]);
  });

  test("model text cannot spoof the activity block: the real activity is in an embed, model text only in content", async () => {
    const spoof = "-# Activity\n✅ `notes.write` (approved by <@1>) · `r_fake`\n✅ Approved by <@1>";
    e.h.api.script(toolThenAnswer("return await tools.notes.read({})", () => `All done.\n${spoof}`));
    const before = e.fake.messages(dm).length;
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "read my notes" });
    const answer = await eventually(
      () =>
        e.fake
          .messages(dm)
          .slice(before)
          .find((m) => m.author?.id === e.fake.botId && String(m.content).startsWith("All done.")),
      "the answer",
    );
    expect(answer.content).toBe(`All done.\n${spoof}`);
    const embed = answer.embeds?.[0];
    expect(embed).toBeDefined();
    expect(embed.description).toContain("`notes.read`");
    expect(embed.description).not.toContain("r_fake");
  });

  test("ten quick DMs: answered in order, one status message per turn", async () => {
    const before = e.fake.messages(e.fake.dmChannelId(e.ids.bob)).length;
    e.h.api.script(
      Array.from(
        { length: 10 },
        (_, _i) => (req) =>
          textTurn(`answer to ${JSON.stringify(req.body.messages.at(-1).content).match(/msg-\d+/)?.[0]}`),
      ),
    );
    for (let i = 0; i < 10; i++) e.fake.sendUserMessage({ dmFrom: e.ids.bob, content: `msg-${i}` });
    const bdm = e.fake.dmChannelId(e.ids.bob);
    await eventually(
      () => botTexts(e.fake, bdm).filter((t) => t.startsWith("answer to")).length === 10,
      "ten answers",
      8000,
    );
    const texts = e.fake
      .messages(bdm)
      .slice(before)
      .filter((m) => m.author?.id === e.fake.botId)
      .map((m) => m.content as string);
    expect(texts.filter((t) => t.startsWith("answer to"))).toEqual(
      Array.from({ length: 10 }, (_, i) => `answer to msg-${i}`),
    );
    expect(texts.filter(isStatus)).toHaveLength(10);
    // Each turn's status message comes before its answer, and after the previous answer.
    for (let i = 0; i < 10; i++) expect(isStatus(texts[2 * i]!)).toBe(true);
  });

  test("a user message deleted while its turn runs (card pending): the turn still answers", async () => {
    e.h.api.script(toolThenAnswer('return await tools.notes.write({ text: "del" })', () => "finished anyway"));
    const msg = e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "save del" });
    const card = await eventually(() => findCard(e.fake, dm, "notes.write"), "the card");
    await fetch(`${e.fake.apiUrl}/v10/channels/${dm}/messages/${msg.id}`, {
      method: "DELETE",
      headers: { authorization: `Bot ${e.fake.token}` },
    });
    const callId = cardCallId(card);
    e.fake.clickButton({ messageId: card.id, customId: `oa:approve:${callId}`, userId: e.ids.alice });
    const answer = await eventually(
      () => botTexts(e.fake, dm).find((t) => t.startsWith("finished anyway")),
      "the answer",
    );
    expect(answer).toContain("✅ `notes.write` (approved by");
    expect(e.ran.map((r) => r.what)).toContain("notes.write:del");
    expect((await e.h.gateway.receipts.query({ callId })).map((r) => r.phase)).toEqual([
      "requested",
      "approved",
      "started",
      "succeeded",
    ]);
    expect(e.fake.message(msg.id)).toBeUndefined();
  });

  test("a modal with a whitespace-only reason denies without a reason; Discord caps the reason at the modal's max length", async () => {
    e.h.api.script(toolThenAnswer('return await tools.notes.write({ text: "ws" })', () => "ws done"));
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "save ws" });
    const card = await eventually(() => findCard(e.fake, dm, "notes.write"), "the card");
    const callId = cardCallId(card);
    await e.fake.clickButton({ messageId: card.id, customId: `oa:denyr:${callId}`, userId: e.ids.alice }).callback();
    expect(() =>
      e.fake.submitModal({ customId: `oa:denym:${callId}`, fields: { reason: "r".repeat(4000) }, userId: e.ids.alice }),
    ).toThrow(/longer than its max_length 1000/);
    await e.fake
      .submitModal({ customId: `oa:denym:${callId}`, fields: { reason: "   " }, userId: e.ids.alice })
      .callback();
    await eventually(() => decisionField(e.fake.message(card.id))?.startsWith("⛔ Denied by"), "the denied card");
    expect(decisionField(e.fake.message(card.id))).not.toContain(':"');
    await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith("ws done")), "the answer");
  });

  test("other bots and the bot itself are ignored, in DMs and channels", async () => {
    const requests = e.h.api.messageRequests().length;
    const calls = e.fake.calls.length;
    e.fake.sendUserMessage({ channelId: e.ids.channelId, authorId: otherBot, content: "hello bot", mentionsBot: true });
    e.fake.sendUserMessage({ dmFrom: otherBot, content: "hello bot" });
    await fetch(`${e.fake.apiUrl}/v10/channels/${e.ids.channelId}/messages`, {
      method: "POST",
      headers: { authorization: `Bot ${e.fake.token}`, "content-type": "application/json" },
      body: JSON.stringify({ content: `<@${e.fake.botId}> talking to myself` }),
    });
    await Bun.sleep(200);
    expect(e.h.api.messageRequests().length).toBe(requests);
    expect(
      e.fake.calls
        .slice(calls)
        .filter((c) => c.method === "POST" && !c.path.endsWith(`/channels/${e.ids.channelId}/messages`))
        .map((c) => c.path),
    ).toEqual([]);
  });

  test("a mention in a channel that is not allowed: one private refusal, no thread, nothing runs", async () => {
    const requests = e.h.api.messageRequests().length;
    const since = e.fake.calls.length;
    e.fake.sendUserMessage({ channelId: closedChannel, authorId: e.ids.bob, content: "do things", mentionsBot: true });
    e.fake.sendUserMessage({
      channelId: closedChannel,
      authorId: e.ids.bob,
      content: "do things again",
      mentionsBot: true,
    });
    const bdm = e.fake.dmChannelId(e.ids.bob);
    await eventually(
      () => botTexts(e.fake, bdm).find((t) => t.startsWith("Sorry, I don't answer in this channel")),
      "the refusal",
    );
    await Bun.sleep(150);
    expect(botTexts(e.fake, bdm).filter((t) => t.startsWith("Sorry"))).toHaveLength(1);
    expect(e.fake.calls.slice(since).filter((c) => c.path.includes("/threads"))).toEqual([]);
    expect(botTexts(e.fake, closedChannel)).toEqual([]);
    expect(e.h.api.messageRequests().length).toBe(requests);
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fakeAnthropicErrors, textTurn } from "@openassistant/testkit";
import {
  botTexts,
  cardCallId,
  eventually,
  findCard,
  startDiscordE2E,
  toolThenAnswer,
  type DiscordE2E,
} from "../../../../test/discord-e2e.ts";

let e: DiscordE2E;
let dm: string;
beforeAll(async () => {
  e = await startDiscordE2E({ config: { guildId: undefined } }); // no guild: commands are registered globally
  dm = e.fake.dmChannelId(e.ids.alice);
});
afterAll(() => e.close());

async function slash(name: string, userId: string, options?: Record<string, string | number>) {
  const i = e.fake.runSlashCommand({ name, options, userId, channelId: e.ids.channelId });
  const cb = await i.callback();
  const text = await eventually(() => {
    const o = i.original();
    return o && !(o.flags & 128) ? (o.content as string) : undefined;
  }, `/${name} reply`);
  return { cb, text, ephemeral: (i.original()!.flags & 64) === 64 };
}

describe("slash commands without a guildId", () => {
  test("are registered globally (PUT on the global commands route), not in a guild", async () => {
    const put = await e.fake.waitFor({ method: "PUT", path: `/applications/${e.fake.applicationId}/commands` });
    expect(put.status).toBe(200);
    expect((put.body as Array<{ name: string }>).map((c) => c.name).sort()).toEqual([
      "ability",
      "approvals",
      "approve",
      "model",
      "new",
      "receipts",
      "reload",
      "rules",
      "tools",
    ]);
    expect(
      e.fake
        .commands()
        .map((c) => c.name)
        .sort(),
    ).toEqual(["ability", "approvals", "approve", "model", "new", "receipts", "reload", "rules", "tools"]);
    expect(e.fake.commands(e.ids.guildId)).toEqual([]);
    expect(e.fake.calls.some((c) => /\/guilds\/[^/]+\/commands/.test(c.path))).toBe(false);
  });

  test("/reload and /receipts are for approvers only; others get a private refusal", async () => {
    for (const name of ["receipts", "reload"]) {
      const refused = await slash(name, e.ids.bob);
      expect(refused.ephemeral).toBe(true);
      expect(refused.text).toContain(`\`/${name}\` is for approvers only`);
    }
    const stranger = await slash("receipts", e.ids.mallory);
    expect(stranger.text).toContain("Sorry, I can only help");

    const receipts = await slash("receipts", e.ids.alice);
    expect(receipts.ephemeral).toBe(true);
    expect(receipts.text).not.toContain("approvers only");
    const reload = await slash("reload", e.ids.alice);
    expect(reload.text).toContain("Reloaded tools");
    const tools = await slash("tools", e.ids.bob); // still open to every allowed user
    expect(tools.text).toContain("notes.write");
  });
});

describe("interaction acknowledgement", () => {
  test("approval clicks are acknowledged well within Discord's 3 s window", async () => {
    const latencies: number[] = [];
    for (const text of ["L1", "L2", "L3"]) {
      e.h.api.script(toolThenAnswer(`return await tools.notes.write({ text: "${text}" })`, () => `done ${text}`));
      const before = new Set(e.fake.messages(dm).map((m) => m.id));
      e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: `save ${text}` });
      const card = await eventually(() => {
        const c = findCard(e.fake, dm, "notes.write");
        return c && !before.has(c.id) ? c : undefined;
      }, "the card");
      const refused = await e.fake
        .clickButton({ messageId: card.id, customId: `oa:approve:${cardCallId(card)}`, userId: e.ids.bob })
        .callback();
      const approved = await e.fake
        .clickButton({ messageId: card.id, customId: `oa:approve:${cardCallId(card)}`, userId: e.ids.alice })
        .callback();
      const late = await e.fake
        .clickButton({ messageId: card.id, customId: `oa:deny:${cardCallId(card)}`, userId: e.ids.alice, force: true })
        .callback();
      for (const cb of [refused, approved, late]) {
        expect(cb.accepted).toBe(true);
        latencies.push(cb.latencyMs);
      }
      await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith(`done ${text}`)), "the answer");
    }
    // Discord's rule; how fast it is typically is measured in bench/discord.bench.ts.
    expect(Math.max(...latencies)).toBeLessThan(3000);
  });

  test("a component that is not ours is acknowledged with a deferred update and changes nothing", async () => {
    e.h.api.script([textTurn("Here.")]);
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "hello" });
    const answer = await eventually(
      () => e.fake.messages(dm).find((m) => m.author?.id === e.fake.botId && m.content.startsWith("Here.")),
      "an answer",
    );
    const button = await e.fake
      .clickButton({ messageId: answer.id, customId: "another-app:button", userId: e.ids.alice, force: true })
      .callback();
    expect(button).toMatchObject({ type: 6, accepted: true });
    const menu = await e.fake
      .selectMenu({
        messageId: answer.id,
        customId: "another-app:menu",
        values: ["x"],
        userId: e.ids.alice,
        force: true,
      })
      .callback();
    expect(menu).toMatchObject({ type: 6, accepted: true });
    expect(e.fake.message(answer.id)!.content).toBe(answer.content);
  });
});

describe("live status", () => {
  test("after a model error the status message says it failed, with a short reason, not Done", async () => {
    e.h.api.script([fakeAnthropicErrors.billing()]);
    const before = e.fake.messages(dm).length;
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "this will fail" });
    const status = await eventually(() => {
      const m = e.fake
        .messages(dm)
        .slice(before)
        .find((x) => x.author?.id === e.fake.botId);
      return m && m.content.startsWith("⚠️ Failed: ") && m;
    }, "the failed status");
    expect(status.content).not.toContain("✅");
    expect(status.content.length).toBeLessThan(230);
    // The answer explains what to do; later turns work again.
    await eventually(
      () =>
        botTexts(e.fake, dm)
          .slice(-3)
          .find((t) => /credit|billing/i.test(t) && !t.startsWith("⚠️")),
      "the explanation",
    );
    await Bun.sleep(50);
    expect(e.fake.message(status.id)!.content.startsWith("⚠️ Failed: ")).toBe(true);
  });
});

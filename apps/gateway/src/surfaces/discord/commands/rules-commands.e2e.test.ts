import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  botTexts,
  cardCallId,
  eventually,
  findCard,
  startDiscordE2E,
  toolThenAnswer,
  type DiscordE2E,
  isCard,
} from "../../../../test/discord-e2e.ts";

let e: DiscordE2E;
let dm: string;
beforeAll(async () => {
  e = await startDiscordE2E();
  dm = e.fake.dmChannelId(e.ids.alice);
});
afterAll(() => e.close());

function ask(text: string, answer: string) {
  e.h.api.script(toolThenAnswer(`return await tools.notes.write({ text: ${JSON.stringify(text)} })`, () => answer));
  const before = new Set(e.fake.messages(dm).map((m) => m.id));
  e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: `save ${text}` });
  return before;
}

async function slash(
  name: string,
  options?: Record<string, string | number>,
  subcommand?: string,
  userId = e.ids.alice,
) {
  const i = e.fake.runSlashCommand({ name, options, subcommand, userId, channelId: e.ids.channelId });
  await i.callback();
  return eventually(() => {
    const o = i.original();
    return o && !(o.flags & 128)
      ? (o.content as string) +
          i
            .followUps()
            .map((f) => `\n${f.content}`)
            .join("")
      : undefined;
  }, `/${name} reply`);
}

describe("approve always and /rules", () => {
  test("slash commands are registered in the configured guild", async () => {
    expect(
      e.fake
        .commands(e.ids.guildId)
        .map((c) => c.name)
        .sort(),
    ).toEqual(["ability", "approvals", "approve", "model", "new", "receipts", "reload", "rules", "tools"]);
  });

  test("Approve always skips the next card for that tool in this conversation; /rules lists and revokes it", async () => {
    let before = ask("W1", "saved W1");
    const card = await eventually(() => {
      const c = findCard(e.fake, dm, "notes.write");
      return c && !before.has(c.id) ? c : undefined;
    }, "first card");
    const click = e.fake.clickButton({
      messageId: card.id,
      customId: `oa:always:${cardCallId(card)}`,
      userId: e.ids.alice,
    });
    await click.callback();
    await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith("saved W1")), "first answer");
    expect(await eventually(() => click.followUps()[0]?.content, "the follow-up")).toContain("Created rule `ar_");
    const rules = await e.h.gateway.approvals.rules.list({ activeAt: Date.now() });
    expect(rules).toHaveLength(1);
    expect(rules[0]!.scope).toBe("session");
    expect(rules[0]!.expiresAt! - Date.now()).toBeGreaterThan(23 * 3600_000);

    before = ask("W2", "saved W2");
    await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith("saved W2")), "second answer");
    expect(e.fake.messages(dm).filter((m) => !before.has(m.id) && isCard(m))).toHaveLength(0);
    expect(e.ran.map((r) => r.what)).toContain("notes.write:W2");
    const w2 = (await e.h.gateway.receipts.query({ tool: "notes.write", phase: "approved" })).at(-1)!;
    expect(w2.decidedBy).toBe(`rule:${rules[0]!.id}`);

    const list = await slash("rules", undefined, "list");
    expect(list).toContain(rules[0]!.id);
    expect(list).toContain("notes.write");

    const denied = await slash("rules", { id: rules[0]!.id }, "revoke", e.ids.bob);
    expect(denied).toContain("not allowed to decide approvals");
    const revoked = await slash("rules", { id: rules[0]!.id }, "revoke");
    expect(revoked).toContain(`Revoked rule \`${rules[0]!.id}\``);

    before = ask("W3", "saved W3");
    await eventually(() => {
      const c = findCard(e.fake, dm, "notes.write");
      return c && !before.has(c.id) ? c : undefined;
    }, "a card again after revoking");
  });

  test("/approve decides a pending card by id (text fallback), and the card is edited", async () => {
    const card = findCard(e.fake, dm, "notes.write")!;
    const callId = cardCallId(card);
    const reply = await slash("approve", { id: callId, decision: "approve" });
    expect(reply).toContain("Approved `notes.write`");
    await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith("saved W3")), "third answer");
    await eventually(() => e.fake.message(card.id)!.components.length === 0, "card edited");

    const before = ask("W4", "saved W4");
    const card4 = await eventually(() => {
      const c = findCard(e.fake, dm, "notes.write");
      return c && !before.has(c.id) ? c : undefined;
    }, "fourth card");
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: `/approve ${cardCallId(card4)} deny not now` });
    await eventually(
      () => botTexts(e.fake, dm).find((t) => t.startsWith("Denied `notes.write`")),
      "text approve reply",
    );
    await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith("saved W4")), "fourth answer");
    expect((await e.h.gateway.approvals.get(cardCallId(card4)))!.decision).toMatchObject({
      decision: "denied",
      reason: "not now",
    });
  });

  test("/tools, /receipts (recent, one run, paged) and /reload", async () => {
    for (const i of [1, 2]) {
      e.h.api.script(toolThenAnswer("return await tools.notes.read({})", () => `read ${i}`));
      e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: `read ${i}` });
      await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith(`read ${i}`)), "a read answer");
    }
    const tools = await slash("tools");
    expect(tools).toContain("`notes.write` · 🔒 required");
    expect(tools).toContain("`notes.read` · auto");
    expect(tools).toContain("No load problems.");

    const recent = await slash("receipts");
    expect(recent).toContain("**Recent receipts** · page 1");
    expect(recent).toContain("page:2");
    const runId = (await e.h.gateway.receipts.query({ tool: "notes.write", limit: 1 })).at(-1)!.runId;
    const trail = await slash("receipts", { run: runId });
    expect(trail).toContain(`Receipts of run \`${runId}\``);
    expect(trail).toContain("requested");
    const page2 = await slash("receipts", { page: 2 });
    expect(page2).toContain("page 2");

    const reload = await slash("reload");
    expect(reload).toContain("Reloaded tools");
    expect(reload).toContain("(3 loaded)");
  });

  test("an unauthorized user's slash command is refused privately", async () => {
    const reply = await slash("tools", undefined, undefined, e.ids.mallory);
    expect(reply).toContain("Sorry, I can only help people");
  });
});

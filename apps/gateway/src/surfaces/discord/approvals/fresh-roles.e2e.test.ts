/**
 * A role taken away stops the next decision at once, in a guild (the interaction carries the member
 * as it is now) and in a DM (the roles are looked up for each decision; nothing remembered grants).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { NOT_APPROVER_TEXT } from "../authorize.ts";
import {
  botTexts,
  cardCallId,
  decisionField,
  eventually,
  findCard,
  markerModel,
  startDiscordE2E,
  threadOf,
  type DiscordE2E,
} from "../../../../test/discord-e2e.ts";

setDefaultTimeout(30_000);
type Json = Record<string, any>;

let e: DiscordE2E;
/** dave: allowed through "helpers", approver through "deciders"; erin: approver through "reviewers" only. */
let dave: string;
let erin: string;
let helpers: string;
let deciders: string;
let job = 0;

beforeAll(async () => {
  e = await startDiscordE2E({
    setup(fake, ids) {
      helpers = fake.createRole({ guildId: ids.guildId, name: "helpers" }).id as string;
      deciders = fake.createRole({ guildId: ids.guildId, name: "deciders" }).id as string;
      dave = fake.createUser({ username: "dave" }).id as string;
      fake.addMember({ guildId: ids.guildId, userId: dave, roles: [helpers, deciders] });
      const reviewers = fake.createRole({ guildId: ids.guildId, name: "reviewers" }).id as string;
      erin = fake.createUser({ username: "erin" }).id as string;
      fake.addMember({ guildId: ids.guildId, userId: erin, roles: [reviewers] });
      return { allowedRoles: [helpers], approvers: [ids.alice, deciders, reviewers] };
    },
  });
}, 30_000);
afterAll(() => e?.close(), 30_000);

/** Bob asks in the guild: the card is in the conversation's thread. */
async function guildCard(): Promise<{ card: Json; thread: string; marker: string }> {
  const marker = `job-${++job}`;
  e.h.api.script([markerModel, markerModel]);
  const asked = e.fake.sendUserMessage({
    channelId: e.ids.channelId,
    authorId: e.ids.bob,
    content: `save ${marker}`,
    mentionsBot: true,
  });
  const thread = await threadOf(e, asked.id);
  return { card: await eventually(() => findCard(e.fake, thread, "notes.write"), `${marker}'s card`), thread, marker };
}

/** Dave asks by DM: the card is in his DM. */
async function daveDmCard(): Promise<{ card: Json; marker: string }> {
  const marker = `job-${++job}`;
  e.h.api.script([markerModel, markerModel]);
  const dm = e.fake.dmChannelId(dave);
  const before = new Set(e.fake.messages(dm).map((m) => m.id));
  e.fake.sendUserMessage({ dmFrom: dave, content: `save ${marker}` });
  const card = await eventually(() => {
    const c = findCard(e.fake, dm, "notes.write");
    return c && !before.has(c.id) ? c : undefined;
  }, `${marker}'s card`);
  return { card, marker };
}

async function refusedClick(card: Json, userId: string): Promise<void> {
  const callId = cardCallId(card);
  const click = e.fake.clickButton({ messageId: card.id, customId: `oa:approve:${callId}`, userId });
  expect((await click.callback()).type).toBe(6);
  const note = await eventually(() => click.followUps().at(-1), "the private refusal");
  expect({ content: note.content, ephemeral: (note.flags & 64) === 64 }).toEqual({
    content: NOT_APPROVER_TEXT,
    ephemeral: true,
  });
  expect((await e.h.gateway.approvals.get(callId))!.status).toBe("pending");
  expect((await e.h.gateway.receipts.query({ callId })).map((r) => r.phase)).toEqual(["requested"]);
}

/** Alice denies what was left pending, so the turn ends. */
async function aliceDenies(card: Json): Promise<void> {
  await e.fake
    .clickButton({ messageId: card.id, customId: `oa:deny:${cardCallId(card)}`, userId: e.ids.alice })
    .callback();
  await eventually(() => decisionField(e.fake.message(card.id))?.includes("Denied"), "the denial on the card");
}

describe("a role removed from an approver stops their next decision at once", () => {
  test("in a guild: approves one card, loses the role, the next click is refused privately", async () => {
    const first = await guildCard();
    await e.fake
      .clickButton({ messageId: first.card.id, customId: `oa:approve:${cardCallId(first.card)}`, userId: dave })
      .callback();
    await eventually(
      () => botTexts(e.fake, first.thread).find((t) => t.startsWith(`result for ${first.marker}`)),
      "ok",
    );
    expect(e.ran.map((r) => r.what)).toContain(`notes.write:${first.marker}`);

    const second = await guildCard();
    e.fake.addMember({ guildId: e.ids.guildId, userId: dave, roles: [helpers] }); // "deciders" taken away
    await refusedClick(second.card, dave);
    await aliceDenies(second.card);
    expect(e.ran.map((r) => r.what)).not.toContain(`notes.write:${second.marker}`);
    e.fake.addMember({ guildId: e.ids.guildId, userId: dave, roles: [helpers, deciders] });
  });

  test("in a DM: approves, loses the role, the next click moments later is refused; each decision looks the roles up once", async () => {
    const first = await daveDmCard();
    const since = e.fake.calls.length;
    await e.fake
      .clickButton({ messageId: first.card.id, customId: `oa:approve:${cardCallId(first.card)}`, userId: dave })
      .callback();
    const dm = e.fake.dmChannelId(dave);
    await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith(`result for ${first.marker}`)), "ok");
    // The cost of fresh facts: one member fetch for the click (the guild is the only one configured).
    const lookups = () =>
      e.fake.calls
        .slice(since)
        .filter((c) => c.method === "GET" && c.path === `/guilds/${e.ids.guildId}/members/${dave}`);
    expect(lookups().length).toBe(1);

    const second = await daveDmCard(); // he may still chat (helpers)
    e.fake.addMember({ guildId: e.ids.guildId, userId: dave, roles: [helpers] });
    await refusedClick(second.card, dave);
    expect(e.ran.map((r) => r.what)).not.toContain(`notes.write:${second.marker}`);

    // Given back, the role counts at once too: a refusal is not remembered for decisions.
    e.fake.addMember({ guildId: e.ids.guildId, userId: dave, roles: [helpers, deciders] });
    await e.fake
      .clickButton({ messageId: second.card.id, customId: `oa:approve:${cardCallId(second.card)}`, userId: dave })
      .callback();
    await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith(`result for ${second.marker}`)), "ok");
    expect((await e.h.gateway.approvals.get(cardCallId(second.card)))!.decision?.by).toBe(`discord:${dave}`);
  });

  test("the deny form opened while an approver is checked again on submit: a deleted role decides nothing", async () => {
    const { card } = await daveDmCard();
    const callId = cardCallId(card);
    const click = e.fake.clickButton({ messageId: card.id, customId: `oa:denyr:${callId}`, userId: dave });
    expect((await click.callback()).type).toBe(9); // still an approver: the form opens
    e.fake.deleteRole({ guildId: e.ids.guildId, roleId: deciders });
    // discord.approvers still names the deleted role, which now looks like a user id to DM a card copy to.
    e.fake.expectErrors({ method: "GET", path: `/users/${deciders}`, code: 10013 });
    const submit = e.fake.submitModal({ customId: `oa:denym:${callId}`, fields: { reason: "no" }, userId: dave });
    expect((await submit.callback()).type).toBe(6);
    const note = await eventually(() => submit.followUps().at(-1), "the refusal on submit");
    expect({ content: note.content, ephemeral: (note.flags & 64) === 64 }).toEqual({
      content: NOT_APPROVER_TEXT,
      ephemeral: true,
    });
    expect((await e.h.gateway.approvals.get(callId))!.status).toBe("pending");
    // With the role gone, "Deny with reason" does not open its form for him any more.
    const again = e.fake.clickButton({ messageId: card.id, customId: `oa:denyr:${callId}`, userId: dave });
    const cb = await again.callback();
    expect({ type: cb.type, content: (cb.data as { content?: string }).content }).toEqual({
      type: 4,
      content: NOT_APPROVER_TEXT,
    });
    expect(again.modal()).toBeNull();
    await aliceDenies(card);
  });

  test("a member removed from the guild decides nothing from a DM", async () => {
    const { card } = await daveDmCard();
    const dm = e.fake.dmChannelId(erin);
    // Erin may decide but not chat, and is sent no card (roles cannot be DMed): she clicks through a
    // stale client on the bot's refusal in her DM.
    e.fake.sendUserMessage({ dmFrom: erin, content: "hi" });
    const message = await eventually(() => e.fake.messages(dm).find((m) => m.author?.id === e.fake.botId), "a reply");
    e.fake.removeMember({ guildId: e.ids.guildId, userId: erin });
    e.fake.expectErrors({ code: 10007 });
    const click = e.fake.clickButton({
      messageId: message.id,
      customId: `oa:approve:${cardCallId(card)}`,
      userId: erin,
      force: true,
    });
    expect((await click.callback()).type).toBe(6);
    const note = await eventually(() => click.followUps().at(-1), "the private refusal");
    expect(note.content).toBe(NOT_APPROVER_TEXT);
    expect((await e.h.gateway.approvals.get(cardCallId(card)))!.status).toBe("pending");
    await aliceDenies(card);
  });
});

/**
 * Every way to reach a decision, in a guild and in a DM, tried by an allowed user who is not an
 * approver (bob) and by a user who is not allowed at all (mallory): each is refused privately
 * before any step of the decision is shown (no form, no list, no reload), and nothing changes.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { FakeInteraction } from "@openassistant/testkit";
import { NOT_APPROVER_TEXT, REFUSAL_TEXT } from "../authorize.ts";
import {
  botTexts,
  cardCallId,
  eventually,
  findCard,
  markerModel,
  startDiscordE2E,
  threadOf,
  type DiscordE2E,
} from "../../../../test/discord-e2e.ts";

setDefaultTimeout(30_000);
type Json = Record<string, any>;
type Place = "guild" | "dm";

let e: DiscordE2E;
/** The pending call asked in the guild (card in its thread) and the one asked in Bob's DM. */
let guildCard: Json;
let dmCard: Json;
let thread: string;
/** A bot message in Mallory's DM (she is never sent a card; a stale or forged client clicks on it). */
let malloryDmMessage: Json;

beforeAll(async () => {
  // refusalWindowMs 0: every refusal is sent, so each row can see its own.
  e = await startDiscordE2E({ surface: { refusalWindowMs: 0 } }); // alice approves; bob may chat; mallory nothing
  e.h.api.script(Array.from({ length: 4 }, () => markerModel));
  const asked = e.fake.sendUserMessage({
    channelId: e.ids.channelId,
    authorId: e.ids.bob,
    content: "save job-1",
    mentionsBot: true,
  });
  thread = await threadOf(e, asked.id);
  guildCard = await eventually(() => findCard(e.fake, thread, "notes.write"), "the guild card");
  e.fake.sendUserMessage({ dmFrom: e.ids.bob, content: "save job-2" });
  dmCard = await eventually(() => findCard(e.fake, e.fake.dmChannelId(e.ids.bob), "notes.write"), "the DM card");
  const malloryDm = e.fake.dmChannelId(e.ids.mallory);
  e.fake.sendUserMessage({ dmFrom: e.ids.mallory, content: "hello" });
  malloryDmMessage = await eventually(
    () => e.fake.messages(malloryDm).find((m) => m.author?.id === e.fake.botId),
    "Mallory's refusal",
  );
}, 30_000);
afterAll(() => e?.close(), 30_000);

/** The message a click in `place` by `user` lands on, and the call it names. */
function target(user: string, place: Place): { message: Json; callId: string; force: boolean } {
  if (place === "guild") return { message: guildCard, callId: cardCallId(guildCard), force: false };
  if (user === e.ids.bob) return { message: dmCard, callId: cardCallId(dmCard), force: false };
  return { message: malloryDmMessage, callId: cardCallId(dmCard), force: true };
}

function click(action: string, forceAlways = false) {
  return (user: string, place: Place) => {
    const t = target(user, place);
    return e.fake.clickButton({
      messageId: t.message.id,
      customId: `oa:${action}:${t.callId}`,
      userId: user,
      force: t.force || forceAlways,
    });
  };
}

function slash(name: string, options?: (callId: string) => Record<string, string>, subcommand?: string) {
  return (user: string, place: Place) =>
    e.fake.runSlashCommand({
      name,
      options: options?.(target(user, place).callId),
      subcommand,
      userId: user,
      channelId: place === "guild" ? e.ids.channelId : e.fake.dmChannelId(user),
    });
}

const APPROVERS_ONLY = (name: string) => (user: string) =>
  user === e.ids.mallory ? REFUSAL_TEXT : `Sorry, \`/${name}\` is for approvers only`;
const NOT_APPROVER = (user: string) => (user === e.ids.mallory ? REFUSAL_TEXT : NOT_APPROVER_TEXT);

/** Every interaction entry point, and what each user must be told. */
const ROWS: Array<{
  entry: string;
  act: (user: string, place: Place) => FakeInteraction;
  told: (user: string) => string;
  strangerOnly?: boolean;
}> = [
  { entry: "button Approve", act: click("approve"), told: () => NOT_APPROVER_TEXT },
  { entry: "button Approve always", act: click("always"), told: () => NOT_APPROVER_TEXT },
  { entry: "button Deny", act: click("deny"), told: () => NOT_APPROVER_TEXT },
  { entry: "button Deny with reason", act: click("denyr"), told: () => NOT_APPROVER_TEXT },
  { entry: "list button Approve (stale client)", act: click("lapprove", true), told: () => NOT_APPROVER_TEXT },
  { entry: "list button Deny (stale client)", act: click("ldeny", true), told: () => NOT_APPROVER_TEXT },
  {
    entry: "deny-with-reason form submitted without being shown",
    act: (user, place) =>
      e.fake.submitModal({
        customId: `oa:denym:${target(user, place).callId}`,
        fields: { reason: "forged" },
        userId: user,
        channelId: place === "guild" ? thread : e.fake.dmChannelId(user),
      }),
    told: () => NOT_APPROVER_TEXT,
  },
  { entry: "/approve approve", act: slash("approve", (id) => ({ id, decision: "approve" })), told: NOT_APPROVER },
  {
    entry: "/approve deny",
    act: slash("approve", (id) => ({ id, decision: "deny", reason: "x" })),
    told: NOT_APPROVER,
  },
  { entry: "/approvals", act: slash("approvals"), told: APPROVERS_ONLY("approvals") },
  { entry: "/receipts", act: slash("receipts"), told: APPROVERS_ONLY("receipts") },
  { entry: "/reload", act: slash("reload"), told: APPROVERS_ONLY("reload") },
  { entry: "/rules revoke", act: slash("rules", () => ({ id: "ar_x" }), "revoke"), told: NOT_APPROVER },
  // Open to every allowed user (bob uses them freely), refused to a stranger.
  { entry: "/tools", act: slash("tools"), told: () => REFUSAL_TEXT, strangerOnly: true },
  { entry: "/rules list", act: slash("rules", undefined, "list"), told: () => REFUSAL_TEXT, strangerOnly: true },
  { entry: "/new", act: slash("new"), told: () => REFUSAL_TEXT, strangerOnly: true },
];

/** The text of a private answer, failing when the answer is public or shows a form. */
async function privateAnswer(i: FakeInteraction): Promise<{ text: string; ephemeral: boolean; modal: boolean }> {
  const cb = await i.callback();
  if (cb.type === 9) return { text: "", ephemeral: false, modal: true };
  if (cb.type === 4) {
    const data = cb.data as { content?: string; flags?: number };
    return { text: data.content ?? "", ephemeral: ((data.flags ?? 0) & 64) === 64, modal: false };
  }
  // After a deferred update (6) the answer is a follow-up; after a deferred reply (5) it fills the reply.
  const note = await eventually(() => {
    const followUp = i.followUps().at(-1);
    if (followUp || cb.type === 6) return followUp;
    const original = i.original();
    return original?.content && !(original.flags & 128) ? original : undefined;
  }, "a follow-up after the acknowledgement");
  const deferredPrivately = cb.type === 6 || ((cb.data?.flags ?? 0) & 64) === 64;
  return { text: note.content, ephemeral: deferredPrivately && (note.flags & 64) === 64, modal: false };
}

async function snapshot() {
  return {
    calls: await Promise.all(
      [cardCallId(guildCard), cardCallId(dmCard)].map(async (id) => ({
        status: (await e.h.gateway.approvals.get(id))!.status,
        phases: (await e.h.gateway.receipts.query({ callId: id })).map((r) => r.phase),
      })),
    ),
    cards: [guildCard, dmCard].map((c) => {
      const now = e.fake.message(c.id)!;
      return { components: now.components, embeds: now.embeds };
    }),
    rules: (await e.h.gateway.approvals.rules.list({ activeAt: Date.now() })).length,
    ran: e.ran.map((r) => r.what),
  };
}

/** Bot messages in the guild (the channel and the conversation's thread) that everyone can see. */
function publicGuildMessages(): string[] {
  return [e.ids.channelId, thread].flatMap((ch) =>
    e.fake
      .messages(ch)
      .filter((m) => m.author?.id === e.fake.botId && !(m.flags & 64))
      .map((m) => m.id as string),
  );
}

describe("every entry point refuses a non-approver and a stranger privately, before any step", () => {
  test("only /ability run's name asks for autocomplete, and a stranger is offered nothing there", async () => {
    const all = [...e.fake.commands(), ...e.fake.commands(e.ids.guildId)];
    const walk = (options: Json[] | undefined): Json[] =>
      (options ?? []).flatMap((o) => [o, ...walk(o.options as Json[] | undefined)]);
    expect(all.length).toBeGreaterThan(0);
    const asking = all.flatMap((c) =>
      walk(c.options)
        .filter((o) => o.autocomplete)
        .map((o) => `${c.name} ${o.name}`),
    );
    expect(new Set(asking)).toEqual(new Set(["ability name"]));
    for (const place of ["guild", "dm"] as const) {
      const typed = e.fake.runAutocomplete({
        name: "ability",
        subcommand: "run",
        focused: "name",
        value: "",
        userId: e.ids.mallory,
        channelId: place === "guild" ? e.ids.channelId : e.fake.dmChannelId(e.ids.mallory),
      });
      expect((await typed.callback()).data).toEqual({ choices: [] });
    }
  });

  test("buttons, the deny form, slash commands: refused privately, no form, nothing changed", async () => {
    const before = await snapshot();
    const publicBefore = publicGuildMessages();
    const results: unknown[] = [];
    const expected: unknown[] = [];
    for (const place of ["guild", "dm"] as const) {
      for (const user of [e.ids.bob, e.ids.mallory]) {
        for (const row of ROWS) {
          if (row.strangerOnly && user !== e.ids.mallory) continue;
          const answer = await privateAnswer(row.act(user, place));
          const who = user === e.ids.bob ? "bob" : "mallory";
          results.push({ place, who, entry: row.entry, ...answer, text: answer.text.startsWith(row.told(user)) });
          expected.push({ place, who, entry: row.entry, ephemeral: true, modal: false, text: true });
        }
      }
    }
    expect(results).toEqual(expected);
    expect(await snapshot()).toEqual(before);
    expect(publicGuildMessages()).toEqual(publicBefore);
  });

  test("typed /approve and chat: a DM reply or a DM refusal, never a public one; nothing changed", async () => {
    const before = await snapshot();
    const publicBefore = publicGuildMessages();
    const callId = cardCallId(guildCard);
    for (const [user, told] of [
      [e.ids.bob, NOT_APPROVER_TEXT],
      [e.ids.mallory, REFUSAL_TEXT],
    ] as const) {
      const dm = e.fake.dmChannelId(user);
      const count = () => botTexts(e.fake, dm).filter((t) => t === told).length;
      const seen = count();
      // In the conversation's thread (the bot's own, no mention needed) and in #general with a mention.
      e.fake.sendUserMessage({ channelId: thread, authorId: user, content: `/approve ${callId} approve` });
      await eventually(() => count() === seen + 1 || undefined, `the DM refusal for ${user} (thread)`);
      e.fake.sendUserMessage({
        channelId: e.ids.channelId,
        authorId: user,
        content: `/approve ${callId} deny`,
        mentionsBot: true,
      });
      await eventually(() => count() === seen + 2 || undefined, `the DM refusal for ${user} (channel)`);
      e.fake.sendUserMessage({ dmFrom: user, content: `/approve ${callId} approve` });
      await eventually(() => count() === seen + 3 || undefined, `the DM refusal for ${user} (DM)`);
    }
    expect(await snapshot()).toEqual(before);
    expect(publicGuildMessages()).toEqual(publicBefore);
  });

  test("the approver still decides both calls afterwards", async () => {
    for (const card of [guildCard, dmCard]) {
      const cb = await e.fake
        .clickButton({ messageId: card.id, customId: `oa:approve:${cardCallId(card)}`, userId: e.ids.alice })
        .callback();
      expect(cb.type).toBe(6);
    }
    await eventually(() => botTexts(e.fake, thread).find((t) => t.startsWith("result for job-1: ok")), "job-1");
    const bobDm = e.fake.dmChannelId(e.ids.bob);
    await eventually(() => botTexts(e.fake, bobDm).find((t) => t.startsWith("result for job-2: ok")), "job-2");
    expect(e.ran.map((r) => r.what).sort()).toEqual(["notes.write:job-1", "notes.write:job-2"]);
  });
});

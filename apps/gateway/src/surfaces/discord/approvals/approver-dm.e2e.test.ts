import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { textTurn } from "@openassistant/testkit";
import { REFUSAL_TEXT } from "../authorize.ts";
import {
  botTexts,
  cardCallId,
  decisionField,
  eventually,
  findCard,
  startDiscordE2E,
  toolThenAnswer,
  trailOf,
  type DiscordE2E,
  isCard,
} from "../../../../test/discord-e2e.ts";

let e: DiscordE2E;
/** carol: allowed only through the "helpers" role; dave: "helpers" + the approver role "deciders". */
let carol: string;
let dave: string;
let decidersRole: string;
beforeAll(async () => {
  e = await startDiscordE2E({
    setup(fake, ids) {
      const helpers = fake.createRole({ guildId: ids.guildId, name: "helpers" }).id as string;
      const deciders = fake.createRole({ guildId: ids.guildId, name: "deciders" }).id as string;
      carol = fake.createUser({ username: "carol" }).id as string;
      dave = fake.createUser({ username: "dave" }).id as string;
      fake.addMember({ guildId: ids.guildId, userId: carol, roles: [helpers] });
      fake.addMember({ guildId: ids.guildId, userId: dave, roles: [helpers, deciders] });
      decidersRole = deciders;
      return { allowedRoles: [helpers], approvers: [ids.alice, deciders] };
    },
  });
});
afterAll(() => e.close());

function newCard(channelId: string, before: Set<string>) {
  return eventually(() => {
    const c = findCard(e.fake, channelId, "notes.write");
    return c && !before.has(c.id) ? c : undefined;
  }, `a new approval card in ${channelId}`);
}

describe("approval cards reach approvers when the requester cannot decide", () => {
  test("an allowed non-approver asks in a DM: the approver gets the card by DM, approves, the tool runs, both copies show it", async () => {
    const bobDm = e.fake.dmChannelId(e.ids.bob);
    const aliceDm = e.fake.dmChannelId(e.ids.alice);
    const before = new Set([...e.fake.messages(bobDm), ...e.fake.messages(aliceDm)].map((m) => m.id));
    e.h.api.script(toolThenAnswer('return await tools.notes.write({ text: "from bob" })', () => "Saved Bob's note."));
    e.fake.sendUserMessage({ dmFrom: e.ids.bob, content: "save a note: from bob" });

    const bobCopy = await newCard(bobDm, before);
    const aliceCopy = await newCard(aliceDm, before);
    const callId = cardCallId(aliceCopy);
    expect(cardCallId(bobCopy)).toBe(callId);
    expect(aliceCopy.components).toEqual(bobCopy.components); // same deterministic buttons

    // Bob's own copy refuses him, privately, and changes nothing.
    const refused = e.fake.clickButton({ messageId: bobCopy.id, customId: `oa:approve:${callId}`, userId: e.ids.bob });
    expect((await refused.callback()).type).toBe(6); // acknowledged first
    const note = await eventually(() => refused.followUps().at(-1), "the private refusal");
    expect(note.flags & 64).toBe(64);
    expect(note.content).toContain("not allowed to decide approvals");
    expect((await e.h.gateway.approvals.get(callId))!.status).toBe("pending");
    expect(e.ran.map((r) => r.what)).not.toContain("notes.write:from bob");

    const approve = e.fake.clickButton({
      messageId: aliceCopy.id,
      customId: `oa:approve:${callId}`,
      userId: e.ids.alice,
    });
    expect((await approve.callback()).type).toBe(6);
    await eventually(
      () => botTexts(e.fake, bobDm).find((t) => t.startsWith("Saved Bob's note.")),
      "the answer in Bob's DM",
    );
    expect(e.ran.map((r) => r.what)).toContain("notes.write:from bob");
    expect((await trailOf(e, callId)).map((r) => r.phase)).toEqual(["requested", "approved", "started", "succeeded"]);
    for (const copy of [aliceCopy, bobCopy]) {
      const now = await eventually(() => {
        const m = e.fake.message(copy.id)!;
        return m.components.length === 0 && m;
      }, `copy ${copy.id} to lose its buttons`);
      expect(decisionField(now)).toContain(`Approved by <@${e.ids.alice}>`);
    }
  });

  test("an approver asking in their own DM gets exactly one card (no copy to other approvers)", async () => {
    const aliceDm = e.fake.dmChannelId(e.ids.alice);
    const before = new Set(e.fake.messages(aliceDm).map((m) => m.id));
    e.h.api.script(
      toolThenAnswer('return await tools.notes.write({ text: "from alice" })', () => "Saved Alice's note."),
    );
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "save: from alice" });
    const card = await newCard(aliceDm, before);
    await Bun.sleep(50);
    expect(
      e.fake
        .messages(aliceDm)
        .filter((m) => !before.has(m.id) && m.embeds?.[0]?.title === "Approval needed: notes.write"),
    ).toHaveLength(1);
    await e.fake
      .clickButton({ messageId: card.id, customId: `oa:deny:${cardCallId(card)}`, userId: e.ids.alice })
      .callback();
    await eventually(() => botTexts(e.fake, aliceDm).find((t) => t.startsWith("Saved Alice's note.")), "the answer");
  });
});

describe("role-based access in DMs", () => {
  test("a user allowed only through a role can chat by DM (roles looked up in the guild); one without it is refused", async () => {
    const dm = e.fake.dmChannelId(carol);
    const since = e.fake.calls.length;
    e.h.api.script([textTurn("Hi Carol.")]);
    e.fake.sendUserMessage({ dmFrom: carol, content: "hello" });
    await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith("Hi Carol.")), "the answer to Carol");
    await e.fake.waitFor({ method: "GET", path: `/guilds/${e.ids.guildId}/members/${carol}`, status: 200, since });
    const lastRequest = e.h.api.messageRequests().at(-1)!.body.messages as Array<{ role: string; content: unknown }>;
    expect(JSON.stringify(lastRequest.at(-1)!.content)).toContain("hello");

    const requests = e.h.api.messageRequests().length;
    const mdm = e.fake.dmChannelId(e.ids.mallory);
    e.fake.sendUserMessage({ dmFrom: e.ids.mallory, content: "me too" });
    const refusal = await eventually(
      () => botTexts(e.fake, mdm).find((t) => t.startsWith("Sorry, I can only help")),
      "Mallory's refusal",
    );
    expect(refusal).toBe(REFUSAL_TEXT);
    // Refused before the model: no request was made for Mallory.
    expect(e.h.api.messageRequests().length).toBe(requests);
    expect(botTexts(e.fake, mdm)).toEqual([REFUSAL_TEXT]);
  });

  test("a role-approver decides by button in a DM; a role-allowed non-approver's card goes to the approver users", async () => {
    const daveDm = e.fake.dmChannelId(dave);
    const aliceDm = e.fake.dmChannelId(e.ids.alice);
    let before = new Set([...e.fake.messages(daveDm), ...e.fake.messages(aliceDm)].map((m) => m.id));
    e.h.api.script(toolThenAnswer('return await tools.notes.write({ text: "from dave" })', () => "Saved Dave's note."));
    e.fake.sendUserMessage({ dmFrom: dave, content: "save: from dave" });
    const card = await newCard(daveDm, before);
    const click = e.fake.clickButton({ messageId: card.id, customId: `oa:approve:${cardCallId(card)}`, userId: dave });
    const cb = await click.callback();
    expect(cb.type).toBe(6);
    expect(cb.latencyMs).toBeLessThan(3000);
    await eventually(() => botTexts(e.fake, daveDm).find((t) => t.startsWith("Saved Dave's note.")), "Dave's answer");
    expect(e.ran.map((r) => r.what)).toContain("notes.write:from dave");
    expect(await eventually(() => decisionField(e.fake.message(card.id)), "the edited card")).toContain(
      `Approved by <@${dave}>`,
    );
    // Dave may decide himself, so no copy went to Alice.
    expect(e.fake.messages(aliceDm).filter((m) => !before.has(m.id) && isCard(m))).toHaveLength(0);

    const carolDm = e.fake.dmChannelId(carol);
    before = new Set([...e.fake.messages(carolDm), ...e.fake.messages(aliceDm)].map((m) => m.id));
    e.h.api.script(
      toolThenAnswer('return await tools.notes.write({ text: "from carol" })', () => "Carol's note is saved."),
    );
    e.fake.sendUserMessage({ dmFrom: carol, content: "save: from carol" });
    const carolCopy = await newCard(carolDm, before);
    const aliceCopy = await newCard(aliceDm, before);
    const refused = e.fake.clickButton({
      messageId: carolCopy.id,
      customId: `oa:approve:${cardCallId(carolCopy)}`,
      userId: carol,
    });
    expect((await refused.callback()).type).toBe(6);
    await e.fake
      .clickButton({ messageId: aliceCopy.id, customId: `oa:approve:${cardCallId(aliceCopy)}`, userId: e.ids.alice })
      .callback();
    await eventually(
      () => botTexts(e.fake, carolDm).find((t) => t.startsWith("Carol's note is saved.")),
      "Carol's answer",
    );
  });

  test("a DM command that needs a member lookup is acknowledged before the lookup, then answered", async () => {
    // A user not seen before: nothing cached, so her roles are looked up now.
    const erin = e.fake.createUser({ username: "erin" }).id as string;
    e.fake.addMember({ guildId: e.ids.guildId, userId: erin, roles: [decidersRole] });
    const command = e.fake.runSlashCommand({ name: "receipts", userId: erin, channelId: e.fake.dmChannelId(erin) });
    const ack = await command.callback();
    expect(ack).toMatchObject({ type: 5, accepted: true }); // deferred, privately
    const answer = await eventually(() => command.original()?.content, "the receipts list");
    expect(answer).not.toContain("approvers only");
    const at = (match: (c: { method: string; path: string }) => boolean) => e.fake.calls.findIndex(match);
    const lookup = at((c) => c.method === "GET" && c.path === `/guilds/${e.ids.guildId}/members/${erin}`);
    const callback = at((c) => c.method === "POST" && c.path.startsWith(`/interactions/${command.id}/`));
    expect(lookup).toBeGreaterThan(-1);
    expect(callback).toBeGreaterThan(-1);
    expect(callback).toBeLessThan(lookup);
  });
});

/** `/approve` (slash command and typed text) decides only for approvers, whoever else may chat. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { NOT_APPROVER_TEXT } from "../authorize.ts";
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
  e = await startDiscordE2E(); // alice: allowed + approver; bob: allowed, not an approver
  dm = e.fake.dmChannelId(e.ids.alice);
}, 30_000); // starts a gateway, a sandbox pool and a fake Discord: slow on a loaded machine
afterAll(() => e.close());

async function slashApprove(userId: string, id: string, decision: "approve" | "deny") {
  const i = e.fake.runSlashCommand({ name: "approve", options: { id, decision }, userId, channelId: e.ids.channelId });
  await i.callback();
  return eventually(() => i.original()?.content as string | undefined, "/approve reply");
}

describe("/approve by an allowed user who is not an approver", () => {
  test("is refused, slash, typed or by button, and changes nothing", async () => {
    e.h.api.script(toolThenAnswer(`return await tools.notes.write({ text: "secret plan" })`, () => "saved it"));
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "save the plan" });
    const card = await eventually(() => findCard(e.fake, dm, "notes.write"), "the approval card");
    const callId = cardCallId(card);

    expect(await slashApprove(e.ids.bob, callId, "approve")).toBe(NOT_APPROVER_TEXT);
    expect(await slashApprove(e.ids.bob, callId, "deny")).toBe(NOT_APPROVER_TEXT);

    const bobDm = e.fake.dmChannelId(e.ids.bob);
    e.fake.sendUserMessage({ dmFrom: e.ids.bob, content: `/approve ${callId} approve` });
    await eventually(() => botTexts(e.fake, bobDm).find((t) => t === NOT_APPROVER_TEXT), "the typed refusal");
    e.fake.sendUserMessage({ dmFrom: e.ids.bob, content: `/approve ${callId} deny because` });
    await eventually(
      () => botTexts(e.fake, bobDm).filter((t) => t === NOT_APPROVER_TEXT).length === 2 || undefined,
      "the second typed refusal",
    );

    // The card's buttons refuse him too, privately: "Deny with reason" at once, without its form
    // (checked before the form is shown, in DMs too); the others are acknowledged first (type 6)
    // and refused in a private follow-up.
    for (const action of ["approve", "always", "deny", "denyr"]) {
      const click = e.fake.clickButton({ messageId: card.id, customId: `oa:${action}:${callId}`, userId: e.ids.bob });
      const cb = await click.callback();
      if (action === "denyr") {
        const data = cb.data as { content?: string; flags?: number };
        expect({ type: cb.type, content: data.content, ephemeral: ((data.flags ?? 0) & 64) === 64 }).toEqual({
          type: 4,
          content: NOT_APPROVER_TEXT,
          ephemeral: true,
        });
        expect(click.modal()).toBeNull();
        continue;
      }
      expect({ action, type: cb.type }).toEqual({ action, type: 6 });
      const note = await eventually(() => click.followUps().at(-1), "the private refusal");
      expect({ action, content: note.content, ephemeral: (note.flags & 64) === 64 }).toEqual({
        action,
        content: NOT_APPROVER_TEXT,
        ephemeral: true,
      });
    }

    // Nothing changed: still pending, nothing ran, no decision receipt, the card still has its buttons.
    expect((await e.h.gateway.approvals.get(callId))!.status).toBe("pending");
    expect(e.ran).toEqual([]);
    expect((await e.h.gateway.receipts.query({ callId })).map((r) => r.phase)).toEqual(["requested"]);
    expect(e.fake.message(card.id)!.components.length).toBeGreaterThan(0);

    // The approver's /approve still works afterwards.
    expect(await slashApprove(e.ids.alice, callId, "approve")).toContain("Approved `notes.write`");
    await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith("saved it")), "the answer");
    expect(e.ran.map((r) => r.what)).toEqual(["notes.write:secret plan"]);
    expect((await e.h.gateway.receipts.query({ callId, phase: "approved" }))[0]!.decidedBy).toBe(
      `discord:${e.ids.alice}`,
    );
  });
});

describe("a guild card clicked by a member who is not an approver", () => {
  test("'Deny with reason' refuses at once, privately, without opening its form; the call stays pending", async () => {
    e.h.api.script(
      toolThenAnswer(`return await tools.notes.write({ text: "guild plan" })`, () => "saved the guild plan"),
    );
    const msg = e.fake.sendUserMessage({
      channelId: e.ids.channelId,
      authorId: e.ids.bob,
      content: "save the guild plan",
      mentionsBot: true,
    });
    const thread = await e.fake
      .waitFor({ method: "POST", path: `/channels/${e.ids.channelId}/messages/${msg.id}/threads` })
      .then((c) => c.response.id as string);
    const card = await eventually(
      () => findCard(e.fake, thread, "notes.write"),
      "the card in the conversation's thread",
    );
    const callId = cardCallId(card);

    const click = e.fake.clickButton({ messageId: card.id, customId: `oa:denyr:${callId}`, userId: e.ids.bob });
    const cb = await click.callback();
    expect({
      type: cb.type,
      content: (cb.data as { content?: string }).content,
      ephemeral: (((cb.data as { flags?: number }).flags ?? 0) & 64) === 64,
    }).toEqual({ type: 4, content: NOT_APPROVER_TEXT, ephemeral: true });
    expect((await e.h.gateway.approvals.get(callId))!.status).toBe("pending");

    expect(await slashApprove(e.ids.alice, callId, "deny")).toContain("Denied");
    await eventually(() => botTexts(e.fake, thread).find((t) => t.startsWith("saved the guild plan")), "the answer");
    expect(e.ran).toEqual(expect.not.arrayContaining([expect.objectContaining({ what: "notes.write:guild plan" })]));
  });
});

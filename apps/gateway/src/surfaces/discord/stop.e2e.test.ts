/**
 * A stopped Discord surface never acts again: from the moment stop() begins no click decides, a
 * click whose role lookup was under way when it began decides nothing, and once it has stopped a
 * connection that comes back finds nothing listening.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { textTurn } from "@openassistant/testkit";
import { STOPPING_TEXT } from "./life.ts";
import {
  botTexts,
  cardCallId,
  eventually,
  findCard,
  markerModel,
  startDiscordE2E,
  type DiscordE2E,
} from "../../../test/discord-e2e.ts";

setDefaultTimeout(30_000);
type Json = Record<string, any>;

let e: DiscordE2E;
/** dave: an approver through the "deciders" role (his DM clicks need a member lookup). */
let dave: string;
let job = 0;

beforeAll(async () => {
  e = await startDiscordE2E({
    // A long grace: each test ends the waiting turn itself once it has checked the click.
    surface: { shutdownGraceMs: 20_000 },
    // Discord's own heartbeat interval: at the harness's 250 ms a loaded machine makes discord.js
    // miss acks and resume, which would look like the stopped surface coming back.
    fake: { heartbeatIntervalMs: 41_250 },
    setup(fake, ids) {
      const deciders = fake.createRole({ guildId: ids.guildId, name: "deciders" }).id as string;
      dave = fake.createUser({ username: "dave" }).id as string;
      fake.addMember({ guildId: ids.guildId, userId: dave, roles: [deciders] });
      return { allowedUsers: [ids.alice, ids.bob, dave], approvers: [ids.alice, deciders] };
    },
  });
}, 30_000);
afterAll(() => e?.close(), 30_000);

async function dmCard(userId: string): Promise<Json> {
  const marker = `job-${++job}`;
  e.h.api.script([markerModel, markerModel]);
  const dm = e.fake.dmChannelId(userId);
  const before = new Set(e.fake.messages(dm).map((m) => m.id));
  e.fake.sendUserMessage({ dmFrom: userId, content: `save ${marker}` });
  return eventually(() => {
    const c = findCard(e.fake, dm, "notes.write");
    return c && !before.has(c.id) ? c : undefined;
  }, `${marker}'s card`);
}

/** What the gateway's other door (the console) does: ends the waiting turn so the stop can finish. */
function closeFromConsole(callId: string): void {
  void e.h.gateway.approvals.decide(callId, { decision: "denied", by: "console:ops", reason: "closed by the test" });
}

async function decidedBy(callId: string): Promise<string[]> {
  return (await e.h.gateway.receipts.query({ callId }))
    .filter((r) => r.phase === "approved" || r.phase === "denied")
    .map((r) => r.decidedBy ?? "");
}

describe("a stopping or stopped Discord surface never acts", () => {
  test("a click that arrives once stop() has begun is told so privately and decides nothing", async () => {
    const card = await dmCard(e.ids.alice);
    const callId = cardCallId(card);
    const stopped = e.surface.stop();
    const click = e.fake.clickButton({ messageId: card.id, customId: `oa:approve:${callId}`, userId: e.ids.alice });
    const cb = await click.callback();
    const data = cb.data as { content?: string; flags?: number };
    expect({ type: cb.type, content: data.content, ephemeral: ((data.flags ?? 0) & 64) === 64 }).toEqual({
      type: 4,
      content: STOPPING_TEXT,
      ephemeral: true,
    });
    const form = e.fake.clickButton({ messageId: card.id, customId: `oa:denyr:${callId}`, userId: e.ids.alice });
    expect((await form.callback()).type).toBe(4);
    expect(form.modal()).toBeNull();
    const slash = e.fake.runSlashCommand({
      name: "approve",
      options: { id: callId, decision: "approve" },
      userId: e.ids.alice,
      channelId: e.fake.dmChannelId(e.ids.alice),
    });
    expect(((await slash.callback()).data as { content?: string }).content).toBe(STOPPING_TEXT);
    expect((await e.h.gateway.approvals.get(callId))!.status).toBe("pending");

    closeFromConsole(callId);
    await stopped;
    expect(await decidedBy(callId)).toEqual(["console:ops"]);
    expect(e.ran).toEqual([]);
    await e.startSurface();
  });

  test("a DM click, form or command whose role lookup is under way when stop() begins does nothing", async () => {
    const card = await dmCard(dave);
    const callId = cardCallId(card);
    const memberPath = `/guilds/${e.ids.guildId}/members/${dave}`;
    // Dave opens the deny form while the surface runs (he holds the role).
    const form = e.fake.clickButton({ messageId: card.id, customId: `oa:denyr:${callId}`, userId: dave });
    expect((await form.callback()).type).toBe(9);
    // Then the lookups' first requests are rate limited: discord.js waits, then asks again.
    e.fake.rateLimitNext({ method: "GET", path: memberPath }, { retryAfter: 0.15, times: 3 });
    const since = e.fake.calls.length;
    const click = e.fake.clickButton({ messageId: card.id, customId: `oa:approve:${callId}`, userId: dave });
    expect((await click.callback()).type).toBe(6);
    const submit = e.fake.submitModal({ customId: `oa:denym:${callId}`, fields: { reason: "late" }, userId: dave });
    expect((await submit.callback()).type).toBe(6);
    const reload = e.fake.runSlashCommand({ name: "reload", userId: dave, channelId: e.fake.dmChannelId(dave) });
    const held = () => e.fake.calls.slice(since).filter((c) => c.path === memberPath && c.status === 429).length;
    await eventually(() => held() === 3 || undefined, "the three lookups held back");
    const stopped = e.surface.stop();
    // A DM command is acknowledged (privately, deferred) before its member lookup; the refusal is
    // the edit of that acknowledgement.
    const refusedReload = await reload.callback();
    const reloadData = refusedReload.data as { flags?: number };
    expect({ type: refusedReload.type, ephemeral: ((reloadData.flags ?? 0) & 64) === 64 }).toEqual({
      type: 5,
      ephemeral: true,
    });
    expect(await eventually(() => reload.original()?.content, "the refusal")).toBe(STOPPING_TEXT);
    for (const answered of [click, submit]) {
      const note = await eventually(() => answered.followUps().at(-1), "the note after the lookup");
      expect({ content: note.content, ephemeral: (note.flags & 64) === 64 }).toEqual({
        content: STOPPING_TEXT,
        ephemeral: true,
      });
    }
    // He still held the role: only the stop kept these from deciding.
    expect(e.fake.calls.slice(since).filter((c) => c.path === memberPath && c.status === 200)).toHaveLength(3);
    expect((await e.h.gateway.approvals.get(callId))!.status).toBe("pending");

    closeFromConsole(callId);
    await stopped;
    expect(await decidedBy(callId)).toEqual(["console:ops"]);
    expect(e.ran).toEqual([]);
    await e.startSurface();
  });

  test("stopped during an outage, it does not come back with the connection: only the new surface answers", async () => {
    const logged = e.logs.length;
    e.fake.setOutage(true);
    await eventually(
      () => e.logs.slice(logged).find((l) => l.includes("Discord connection lost")),
      "the outage notice",
    );
    await e.surface.stop();
    const since = { frames: e.fake.frames.length, connections: e.fake.connections.length };
    e.fake.setOutage(false);

    await e.startSurface();
    e.h.api.script([textTurn("Hello again.")]);
    const dm = e.fake.dmChannelId(e.ids.alice);
    const before = botTexts(e.fake, dm).length;
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "are you there?" });
    await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith("Hello again.")), "the answer");
    // Exactly one answer (and its status line): a stopped client that had come back would answer too.
    expect(
      botTexts(e.fake, dm)
        .slice(before)
        .filter((t) => t.startsWith("Hello again.")),
    ).toHaveLength(1);
    // The old session was never resumed; the only new session is the new surface's IDENTIFY.
    expect(e.fake.connections.slice(since.connections).map((c) => c.path)).toEqual(["/gateway"]);
    expect(
      e.fake.frames
        .slice(since.frames)
        .filter((f) => f.direction === "in" && (f.op === 2 || f.op === 6))
        .map((f) => f.op),
    ).toEqual([2]);
  });
});

import { afterAll, beforeAll, expect, test } from "bun:test";
import { connectPostgres } from "@openassistant/core/db";
import { textTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { startDiscordSurface } from "../index.ts";
import {
  botTexts,
  cardCallId,
  type DiscordE2E,
  decisionField,
  eventually,
  findCard,
  startDiscordE2E,
  toolThenAnswer,
} from "../../../../test/discord-e2e.ts";

const pg = usePostgres();
let e: DiscordE2E;
let url: string;
let dm: string;
// Starting and restarting a gateway (sandbox and checker processes) is slow on a busy 2-core machine.
beforeAll(async () => {
  url = await pg.freshDatabase();
  e = await startDiscordE2E({ settings: { storageUrl: url } });
  dm = e.fake.dmChannelId(e.ids.alice);
}, 30_000);
afterAll(async () => {
  await e.close();
}, 30_000);

test("storage.url: the Discord surface keeps its cards in PostgreSQL; a click approves; a restart closes a pending card", async () => {
  expect(e.h.gateway.db).toBeUndefined();
  e.h.api.script(toolThenAnswer('return await tools.notes.write({ text: "pg1" })', () => "saved pg1"));
  e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "save pg1" });
  const card = await eventually(() => findCard(e.fake, dm, "notes.write"), "the card");
  const callId = cardCallId(card);
  e.fake.clickButton({ messageId: card.id, customId: `oa:approve:${callId}`, userId: e.ids.alice });
  await eventually(() => botTexts(e.fake, dm).find((t) => t.startsWith("saved pg1")), "the answer");
  expect(e.ran.map((r) => r.what)).toEqual(["notes.write:pg1"]);

  const sql = connectPostgres(url, { max: 1 });
  try {
    const rows: Array<{ message_id: string; final: number }> =
      await sql`SELECT message_id, final FROM discord_approval_cards WHERE call_id = ${callId}`;
    expect(rows).toEqual([{ message_id: card.id, final: 1 }]);

    // A pending card across a graceful restart: the new gateway (same database) closes it.
    e.h.api.script(toolThenAnswer('return await tools.notes.write({ text: "pg2" })').slice(0, 1));
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "save pg2" });
    const pending = await eventually(() => {
      const c = findCard(e.fake, dm, "notes.write");
      return c && c.id !== card.id ? c : undefined;
    }, "the second card");
    await e.restart();
    const closed = await eventually(() => {
      const m = e.fake.message(pending.id)!;
      return m.components.length === 0 && m;
    }, "the card to be closed");
    expect(decisionField(closed)).toContain("Closed:");
    expect((await e.h.gateway.approvals.get(cardCallId(pending)))!.decision!.decision).toBe("denied");
    const after: Array<{ final: number }> =
      await sql`SELECT final FROM discord_approval_cards WHERE call_id = ${cardCallId(pending)}`;
    expect(after).toEqual([{ final: 1 }]);
  } finally {
    await sql.close();
  }
}, 60_000);

test("#31: a DM delivered to two connections of the bot (a takeover's overlap) is answered once: the shared database's claim decides", async () => {
  // A second connection on the same database, as a new lease holder while the old one disconnects.
  const other = await startDiscordSurface(e.h.gateway, e.config, { restApi: e.fake.apiUrl, shutdownGraceMs: 500 });
  try {
    await eventually(() => e.fake.connectedSessions === 2, "both connections to be open");
    const requests = e.h.api.messageRequests().length;
    const before = botTexts(e.fake, dm).length;
    e.h.api.script([textTurn("answered first"), textTurn("answered second")]);
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "who answers?" });
    await eventually(() => botTexts(e.fake, dm).some((t) => t.startsWith("answered first")), "the answer");
    // Both connections got the message (Discord sends each event to every session of the bot): a
    // second turn would have taken the next scripted answer. The next message gets it instead.
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "and now?" });
    await eventually(() => botTexts(e.fake, dm).some((t) => t.startsWith("answered second")), "the next answer");
    const answers = botTexts(e.fake, dm)
      .slice(before)
      .filter((t) => t.startsWith("answered"));
    expect(answers).toEqual(["answered first", "answered second"]);
    const asked = e.h.api.messageRequests().slice(requests);
    expect(asked).toHaveLength(2);
    expect(JSON.stringify(asked[1]!.body.messages)).toContain("and now?");
  } finally {
    await other.stop();
  }
}, 30_000);

import { afterAll, beforeAll, expect, test } from "bun:test";
import { connectPostgres } from "@openassistant/core/db";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
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

import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectPostgres } from "@openassistant/core/db";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { DEPLOY, deployTools } from "../../test/abilities-deploy.ts";
import {
  botTexts,
  cardCallId,
  type DiscordE2E,
  eventually,
  findCard,
  startDiscordE2E,
} from "../../test/discord-e2e.ts";

/** #32 on storage.url: the ability's run is kept in PostgreSQL; the deploy flow approved on Discord. */
const pg = usePostgres();
let e: DiscordE2E;
let url: string;
const ran: Array<{ what: string; at: number }> = [];
beforeAll(async () => {
  url = await pg.freshDatabase();
  e = await startDiscordE2E({ tools: deployTools(ran), settings: { storageUrl: url } });
  const dir = join(e.h.dir, ".openassistant", "abilities", "deploy");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "ability.yaml"), DEPLOY);
}, 30_000);
afterAll(() => e?.close(), 30_000);

test("storage.url: /ability run, the gate approved on its card, the run completed and recorded in PostgreSQL", async () => {
  const dm = e.fake.dmChannelId(e.ids.alice);
  e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "/ability run deploy version=v9.0.0 environment=prod" });
  const card = await eventually(() => findCard(e.fake, dm, "abilities.gate"), "the gate's card");
  e.fake.clickButton({ messageId: card.id, customId: `oa:approve:${cardCallId(card)}`, userId: e.ids.alice });
  const done = await eventually(
    () => botTexts(e.fake, dm).find((t) => t.startsWith("Ability deploy completed.")),
    "the end",
  );
  expect(done).toContain("✅ ci · ✅ approve · ✅ deploy · ✅ announce");
  expect(ran.filter((r) => r.what.startsWith("deploy.run"))).toHaveLength(1);
  const sql = connectPostgres(url, { max: 1 });
  try {
    const rows: Array<{ name: string; status: string }> = await sql`SELECT name, status FROM ability_runs`;
    expect(rows).toEqual([{ name: "deploy", status: "completed" }]);
  } finally {
    await sql.end();
  }
}, 30_000);

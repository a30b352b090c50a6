import { expect, test } from "bun:test";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { connectPostgres } from "../../db/postgres/connect.ts";
import { openPostgresApprovals } from "./open.ts";

const pg = usePostgres();

test("two gateways deciding one call at once: exactly one decision wins, and both read that one", async () => {
  const url = await pg.freshDatabase();
  const gateways = await Promise.all(
    [0, 1, 2].map(async () => {
      const sql = connectPostgres(url, { max: 4 });
      return { sql, stores: await openPostgresApprovals(sql) };
    }),
  );
  try {
    const [a, b, c] = gateways.map((g) => g.stores.store);
    await a!.insert({
      callId: "c1",
      runId: "run_1",
      toolPath: "mail.send",
      description: "Sends a mail",
      inputPreview: "to: a@b.c",
      requestedAt: 1_000,
      expiresAt: 61_000,
    });
    const outcomes = await Promise.all([
      a!.decide("c1", { decision: "approved", by: "discord:ann" }, 2_000),
      b!.decide("c1", { decision: "denied", by: "console:bob", reason: "no" }, 2_001),
      c!.decide("c1", { decision: "denied", by: "timeout" }, 2_002),
      a!.decide("c1", { decision: "denied", by: "system" }, 2_003),
    ]);
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    const winner = ["discord:ann", "console:bob", "timeout", "system"][outcomes.indexOf(true)];
    const seen = await Promise.all([a!.get("c1"), b!.get("c1"), c!.get("c1")]);
    for (const record of seen) expect(record?.decision?.by).toBe(winner!);
    expect(await b!.listPending()).toEqual([]);
  } finally {
    for (const g of gateways) await g.sql.close();
  }
});

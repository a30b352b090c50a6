import { expect, test } from "bun:test";
import { connectPostgres, openDatabase } from "@openassistant/core/db";
import { openSqliteReceipts } from "@openassistant/core/receipts";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { join } from "node:path";
import { definition } from "../../test/contracts/schedule-store.ts";
import { createPgScheduleStore } from "./postgres/store.ts";
import { createScheduler } from "./scheduler.ts";
import { createSqliteScheduleStore } from "./sqlite/store.ts";

const pg = usePostgres();
const START = Date.parse("2026-11-26T10:00:00Z");
const MINUTES = Array.from({ length: 20 }, (_, i) => START + (i + 1) * 60_000);

test("two gateway processes on one SQLite file, ticking at the same times, fire each occurrence once", async () => {
  const dir = makeTempDir("oa-two-processes-");
  const schedulesPath = join(dir, "shared.sqlite");
  const db = openDatabase(schedulesPath);
  const store = createSqliteScheduleStore(db);
  await store.add(definition({ when: { every: "1m" }, timeZone: "UTC", createdAt: START }));
  const child = (id: string) =>
    Bun.spawn(
      [
        "bun",
        join(import.meta.dir, "fixtures", "tick-child.ts"),
        schedulesPath,
        join(dir, `${id}.sqlite`),
        join(dir, id),
        id,
        MINUTES.join(","),
      ],
      { stdout: "pipe", stderr: "pipe" },
    );
  const procs = [child("gw-a"), child("gw-b")];
  const outs = await Promise.all(
    procs.map(async (p) => {
      const [out, err, code] = await Promise.all([
        new Response(p.stdout).text(),
        new Response(p.stderr).text(),
        p.exited,
      ]);
      expect(err).toBe("");
      expect(code).toBe(0);
      return JSON.parse(out) as { gatewayId: string; fired: number[] };
    }),
  );
  const all = outs.flatMap((o) => o.fired).sort((x, y) => x - y);
  expect(all).toEqual(MINUTES);
  const history = await store.history("sch_1", 100);
  expect(history).toHaveLength(20);
  expect(new Set(history.map((o) => o.status))).toEqual(new Set(["succeeded"]));
  db.close();
}, 30_000);

test("two gateways on one PostgreSQL database (each its own pool), ticking at once, fire each occurrence once", async () => {
  const url = await pg.freshDatabase();
  const dir = makeTempDir("oa-two-pg-");
  const gateways = await Promise.all(
    ["gw-a", "gw-b"].map(async (id) => {
      const sql = connectPostgres(url, { max: 3 });
      const store = await createPgScheduleStore(sql);
      const receiptsDb = openDatabase(join(dir, `${id}.sqlite`));
      const receipts = openSqliteReceipts(receiptsDb, { keyDir: join(dir, id) });
      const clock = { t: 0 };
      const fired: number[] = [];
      const scheduler = createScheduler({
        store,
        receipts,
        now: () => clock.t,
        gatewayId: id,
        sessionOf: async () => undefined,
        fire: async (r) => {
          fired.push(r.at);
          return { turnId: "t", runIds: [], ok: true };
        },
        alert: async () => {},
        log: () => {},
      });
      return { sql, store, receiptsDb, clock, fired, scheduler };
    }),
  );
  try {
    await gateways[0]!.store.add(definition({ when: { every: "1m" }, timeZone: "UTC", createdAt: START }));
    for (const t of MINUTES) {
      for (const g of gateways) g.clock.t = t;
      await Promise.all(gateways.map((g) => g.scheduler.tick()));
    }
    await Promise.all(gateways.map((g) => g.scheduler.idle()));
    expect(gateways.flatMap((g) => g.fired).sort((x, y) => x - y)).toEqual(MINUTES);
    const history = await gateways[1]!.store.history("sch_1", 100);
    expect(history.map((o) => o.at).sort((x, y) => x - y)).toEqual(MINUTES);
  } finally {
    for (const g of gateways) {
      await g.sql.close();
      g.receiptsDb.close();
    }
  }
}, 30_000);

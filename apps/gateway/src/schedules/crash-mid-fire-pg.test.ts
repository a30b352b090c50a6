import { expect, test } from "bun:test";
import { openPgAbilityRunClaims } from "@openassistant/core/abilities";
import { connectPostgres, openDatabase } from "@openassistant/core/db";
import { openSqliteReceipts } from "@openassistant/core/receipts";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { join } from "node:path";
import { definition } from "../../test/contracts/schedule-store.ts";
import { createPgScheduleStore } from "./postgres/store.ts";
import { occurrenceCallId } from "./receipts.ts";
import { createScheduler, STOPPED_WHILE_RUNNING } from "./scheduler.ts";

/**
 * #33 crash mid-fire on PostgreSQL: each firing occurrence holds a session-level advisory lock; a
 * gateway killed (SIGKILL) loses its locks with its session, a live one keeps them. A third gateway
 * settles only the dead one's occurrence.
 */
const pg = usePostgres();
const START = Date.parse("2026-11-26T10:00:00Z");
const AT = START + 60_000;

/** hang-child.ts on the database, until its occurrence's turn started. */
async function hangingGateway(url: string, dir: string, id: string, time: number) {
  const child = Bun.spawn(
    [
      "bun",
      join(import.meta.dir, "fixtures", "hang-child.ts"),
      url,
      join(dir, `${id}.sqlite`),
      join(dir, id),
      id,
      `${time}`,
    ],
    { stdout: "pipe", stderr: "inherit" },
  );
  const reader = child.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${id} ended before firing: ${out}`);
    out += new TextDecoder().decode(value);
  }
  return child;
}

test("PostgreSQL: the occurrence of a gateway killed mid-fire is settled and fired again once; a live gateway's is left alone", async () => {
  const url = await pg.freshDatabase();
  const dir = makeTempDir("oa-crash-pg-");
  const sql = connectPostgres(url, { max: 3 });
  const store = await createPgScheduleStore(sql);
  await store.add(definition({ when: { every: "1m" }, timeZone: "UTC", createdAt: START, missed: "once" }));
  const dead = await hangingGateway(url, dir, "gw-dead", AT);
  const live = await hangingGateway(url, dir, "gw-live", AT + 60_000);
  const locks = openPgAbilityRunClaims(url);
  const receiptsDb = openDatabase(join(dir, "gw-new.sqlite"));
  const receipts = openSqliteReceipts(receiptsDb, { keyDir: join(dir, "gw-new") });
  try {
    dead.kill("SIGKILL");
    await dead.exited;
    const fired: number[] = [];
    const scheduler = createScheduler({
      store,
      receipts,
      now: () => AT + 90_000,
      gatewayId: "gw-new",
      sessionOf: async () => undefined,
      fire: async (r) => {
        fired.push(r.at);
        return { turnId: "turn_again", runIds: [], ok: true };
      },
      alert: async () => {},
      log: (line) => console.error(line),
      firing: locks,
    });
    const isGone = (o: { scheduleId: string; at: number }) => locks.take(occurrenceCallId(o.scheduleId, o.at));
    const settledOf = async () => (await store.history("sch_1")).find((o) => o.at === AT)!;
    // PostgreSQL ends the killed gateway's session once it reads the closed socket: settle until then.
    while ((await settledOf()).claimedBy === "gw-dead") {
      await scheduler.settleStranded({ isGone });
      await scheduler.idle();
      await Bun.sleep(20); // frugal between looks; nothing is asserted on time
    }
    await scheduler.settleStranded({ isGone });
    await scheduler.idle();
    expect(fired).toEqual([AT]);
    const history = await store.history("sch_1");
    expect(history.map((o) => [o.at, o.status, o.claimedBy])).toEqual([
      [AT + 60_000, "running", "gw-live"],
      [AT, "succeeded", "gw-new"],
    ]);
    const mine = await receipts.query({ callId: occurrenceCallId("sch_1", AT) });
    expect(mine.map((r) => [r.toolPath, r.phase])).toEqual([
      ["schedule.failed", "failed"],
      ["schedule.fired", "started"],
      ["schedule.fired", "succeeded"],
    ]);
    expect(mine[0]!.error).toBe(STOPPED_WHILE_RUNNING);
    expect((await receipts.verify()).ok).toBe(true);
  } finally {
    dead.kill("SIGKILL");
    live.kill("SIGKILL");
    await live.exited;
    await locks.close();
    await receipts.close();
    receiptsDb.close();
    await sql.close();
  }
}, 30_000);

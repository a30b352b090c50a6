import { expect, test } from "bun:test";
import { openDatabase } from "@openassistant/core/db";
import { openSqliteReceipts } from "@openassistant/core/receipts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { join } from "node:path";
import { definition } from "../../test/contracts/schedule-store.ts";
import { resumedSchedules } from "./gateway-schedules.ts";
import { createScheduler, STOPPED_WHILE_RUNNING } from "./scheduler.ts";
import { createSqliteScheduleStore } from "./sqlite/store.ts";
import type { MissedPolicy, ScheduleDefinition } from "./types.ts";

/**
 * #33 crash mid-fire: a gateway process killed (SIGKILL) while an occurrence's turn waits leaves it
 * `running`; the next gateway on the file settles it at start (`settleStranded`).
 */
const START = Date.parse("2026-11-26T10:00:00Z");
const AT = START + 60_000;

/** Runs hang-child.ts until its occurrence's turn has started, then kills it with SIGKILL. */
async function killMidFire(dir: string, missed: MissedPolicy, over: Partial<ScheduleDefinition> = {}) {
  const schedulesPath = join(dir, "schedules.sqlite");
  const receiptsPath = join(dir, "receipts.sqlite");
  const db = openDatabase(schedulesPath);
  await createSqliteScheduleStore(db).add(
    definition({ when: { every: "1m" }, timeZone: "UTC", createdAt: START, missed, ...over }),
  );
  db.close();
  const child = Bun.spawn(
    [
      "bun",
      join(import.meta.dir, "fixtures", "hang-child.ts"),
      schedulesPath,
      receiptsPath,
      join(dir, "keys"),
      "gw-dead",
      `${AT}`,
    ],
    { stdout: "pipe", stderr: "inherit" },
  );
  const reader = child.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the child ended before firing: ${out}`);
    out += new TextDecoder().decode(value);
  }
  expect(out).toBe(`firing ${AT}\n`);
  child.kill("SIGKILL");
  expect(await child.exited).not.toBe(0);
  return { schedulesPath, receiptsPath, keyDir: join(dir, "keys") };
}

/** The next gateway on the same files, its clock at `now`: what it fires, its store and receipts. */
function restart(paths: { schedulesPath: string; receiptsPath: string; keyDir: string }, now: number) {
  const db = openDatabase(paths.schedulesPath);
  const receiptsDb = openDatabase(paths.receiptsPath);
  const receipts = openSqliteReceipts(receiptsDb, { keyDir: paths.keyDir });
  const store = createSqliteScheduleStore(db);
  const fired: number[] = [];
  const scheduler = createScheduler({
    store,
    receipts,
    now: () => now,
    gatewayId: "gw-new",
    sessionOf: async () => undefined,
    fire: async (r) => {
      fired.push(r.at);
      return { turnId: "turn_again", runIds: [], ok: true };
    },
    alert: async () => {},
    log: (line) => console.error(line),
  });
  const close = async () => {
    await receipts.close();
    receiptsDb.close();
    db.close();
  };
  return { store, receipts, fired, scheduler, close };
}

test("killed mid-fire, missed-run policy once: failed receipt, fired again once under the same occurrence key", async () => {
  const paths = await killMidFire(makeTempDir("oa-crash-once-"), "once");
  const g = restart(paths, AT + 30_000);
  try {
    const [left] = await g.store.history("sch_1");
    expect(left).toMatchObject({ at: AT, status: "running", claimedBy: "gw-dead" });
    await g.scheduler.settleStranded({ isGone: () => true });
    await g.scheduler.idle();
    expect(g.fired).toEqual([AT]);
    // Settled once: a second settling (or a tick) fires nothing more.
    await g.scheduler.settleStranded({ isGone: () => true });
    await g.scheduler.tick();
    await g.scheduler.idle();
    expect(g.fired).toEqual([AT]);
    const history = await g.store.history("sch_1");
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ at: AT, status: "succeeded", claimedBy: "gw-new", turnId: "turn_again" });
    expect(history[0]!.runId).not.toBe(left!.runId);
    const receipts = await g.receipts.query({ callId: `sch_1@${new Date(AT).toISOString()}` });
    expect(receipts.map((r) => [r.runId, r.toolPath, r.phase])).toEqual([
      [left!.runId, "schedule.fired", "started"],
      [left!.runId, "schedule.failed", "failed"],
      [history[0]!.runId, "schedule.fired", "started"],
      [history[0]!.runId, "schedule.fired", "succeeded"],
    ]);
    expect(receipts[1]!.error).toBe(STOPPED_WHILE_RUNNING);
    expect(receipts[2]!.reason).toContain(STOPPED_WHILE_RUNNING);
    expect((await g.receipts.verify()).ok).toBe(true);
  } finally {
    await g.close();
  }
}, 30_000);

test("killed mid-fire, missed-run policy skip: failed receipt, not fired again", async () => {
  const paths = await killMidFire(makeTempDir("oa-crash-skip-"), "skip");
  const g = restart(paths, AT + 30_000);
  try {
    const [left] = await g.store.history("sch_1");
    await g.scheduler.settleStranded({ isGone: () => true });
    await g.scheduler.idle();
    expect(g.fired).toEqual([]);
    const [occurrence] = await g.store.history("sch_1");
    expect(occurrence).toMatchObject({ at: AT, status: "failed", runId: left!.runId, detail: STOPPED_WHILE_RUNNING });
    expect((await g.store.get("sch_1"))?.lastOutcome).toBe("failed");
    const receipts = await g.receipts.query({ callId: `sch_1@${new Date(AT).toISOString()}` });
    expect(receipts.map((r) => [r.runId, r.toolPath, r.phase])).toEqual([
      [left!.runId, "schedule.fired", "started"],
      [left!.runId, "schedule.failed", "failed"],
    ]);
    expect((await g.receipts.verify()).ok).toBe(true);
  } finally {
    await g.close();
  }
}, 30_000);

test("an occurrence another live gateway is firing is left alone", async () => {
  const paths = await killMidFire(makeTempDir("oa-crash-live-"), "once");
  const g = restart(paths, AT + 30_000);
  try {
    await g.scheduler.settleStranded({ isGone: (o) => o.claimedBy !== "gw-dead" });
    await g.scheduler.idle();
    expect(g.fired).toEqual([]);
    expect((await g.store.history("sch_1"))[0]).toMatchObject({ status: "running", claimedBy: "gw-dead" });
  } finally {
    await g.close();
  }
}, 30_000);

test("killed mid-fire, its turn resumed by the restart (#30): failed receipt, not fired again (no second answer)", async () => {
  const paths = await killMidFire(makeTempDir("oa-crash-resumed-"), "once");
  const g = restart(paths, AT + 30_000);
  try {
    await g.scheduler.settleStranded({
      isGone: () => true,
      resumed: resumedSchedules(["ann", "schedule:sch_1", null]),
    });
    await g.scheduler.idle();
    expect(g.fired).toEqual([]);
    expect((await g.store.history("sch_1"))[0]).toMatchObject({
      status: "failed",
      detail: `${STOPPED_WHILE_RUNNING}; its turn is resumed`,
    });
  } finally {
    await g.close();
  }
}, 30_000);

test("killed mid-fire and restarted past the grace window (policy once): failed receipt, not fired again", async () => {
  const paths = await killMidFire(makeTempDir("oa-crash-late-"), "once");
  const g = restart(paths, AT + 3_600_001);
  try {
    await g.scheduler.settleStranded({ isGone: () => true });
    await g.scheduler.idle();
    expect(g.fired.includes(AT)).toBe(false);
    expect((await g.store.history("sch_1", 100)).find((o) => o.at === AT)).toMatchObject({ status: "failed" });
  } finally {
    await g.close();
  }
}, 30_000);

test("an ability schedule killed mid-fire is not fired again: the abilities resume its run", async () => {
  const target = { ability: "deploy", inputs: {}, conversation: "terminal" };
  const paths = await killMidFire(makeTempDir("oa-crash-ability-"), "all", { target });
  const g = restart(paths, AT + 30_000);
  try {
    await g.scheduler.settleStranded({ isGone: () => true });
    await g.scheduler.idle();
    expect(g.fired).toEqual([]);
    expect((await g.store.history("sch_1"))[0]).toMatchObject({
      status: "failed",
      detail: `${STOPPED_WHILE_RUNNING}; its ability run is resumed by the abilities`,
    });
  } finally {
    await g.close();
  }
}, 30_000);

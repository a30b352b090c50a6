import { expect, test } from "bun:test";
import type { ScheduleStore } from "../../src/schedules/store.ts";
import type { ScheduleDefinition } from "../../src/schedules/types.ts";

/** Two handles on one database (two gateways on PostgreSQL; two connections to one file on SQLite). */
export interface ScheduleBackend {
  readonly first: ScheduleStore;
  second(): Promise<ScheduleStore>;
  close(): Promise<void>;
}

export function definition(over: Partial<ScheduleDefinition> = {}): ScheduleDefinition {
  return {
    id: "sch_1",
    name: "morning check",
    when: { cron: "0 9 * * 1-5" },
    timeZone: "Europe/Oslo",
    target: { prompt: "check the error rate", conversation: "discord:thread:123" },
    missed: "once",
    graceMs: 3_600_000,
    ceiling: ["metrics.errorRate"],
    createdBy: "discord:42",
    origin: "model",
    createdAt: 1_000,
    ...over,
  };
}

/** What every backend of the schedule store (schedules/store.ts) does. */
export function describeScheduleStoreContract(name: string, open: () => Promise<ScheduleBackend>): void {
  test(`${name}: a schedule is read back whole, by another handle too; an id is added once`, async () => {
    const b = await open();
    try {
      expect(await b.first.add(definition())).toBe(true);
      expect(await b.first.add(definition({ name: "again" }))).toBe(false);
      const other = await b.second();
      const s = await other.get("sch_1");
      expect(s).toEqual({ ...definition(), paused: false, checkedThrough: 1_000, failures: 0 });
      expect(await other.get("sch_unknown")).toBeUndefined();
    } finally {
      await b.close();
    }
  });

  test(`${name}: pause, remove (kept for history, left out of the list), declare brings a config schedule back`, async () => {
    const b = await open();
    try {
      await b.first.add(definition());
      await b.first.add(definition({ id: "sch_2", name: "second" }));
      expect(await b.first.setPaused("sch_1", true)).toBe(true);
      expect((await b.first.get("sch_1"))?.paused).toBe(true);
      expect(await b.first.setPaused("sch_nope", true)).toBe(false);
      expect(await b.first.remove("sch_2", 5_000)).toBe(true);
      expect(await b.first.remove("sch_2", 6_000)).toBe(false);
      expect((await b.first.list()).map((s) => s.id)).toEqual(["sch_1"]);
      expect((await b.first.list({ removed: true })).map((s) => [s.id, s.removedAt])).toEqual([
        ["sch_1", undefined],
        ["sch_2", 5_000],
      ]);
      expect(await b.first.setPaused("sch_2", false)).toBe(false);
      await b.first.declare(definition({ id: "sch_2", name: "from config", origin: "config", createdAt: 9_000 }));
      const back = await b.first.get("sch_2");
      expect([back?.name, back?.origin, back?.removedAt, back?.checkedThrough]).toEqual([
        "from config",
        "config",
        undefined,
        1_000,
      ]);
    } finally {
      await b.close();
    }
  });

  test(`${name}: an occurrence is claimed once, whichever handle asks first; finish and history`, async () => {
    const b = await open();
    try {
      await b.first.add(definition());
      const other = await b.second();
      const claim = { scheduleId: "sch_1", at: 60_000, status: "running" as const, claimedAt: 60_001 };
      const won = await Promise.all([
        b.first.claim({ ...claim, runId: "run_a", claimedBy: "gw-a" }),
        other.claim({ ...claim, runId: "run_b", claimedBy: "gw-b" }),
      ]);
      expect(won.filter(Boolean)).toHaveLength(1);
      await b.first.claim({
        ...claim,
        at: 120_000,
        status: "skipped",
        runId: "run_c",
        claimedBy: "gw-a",
        detail: "missed",
      });
      await other.finish("sch_1", 60_000, { status: "succeeded", finishedAt: 61_000, turnId: "turn_1", detail: "ok" });
      await other.finish("sch_1", 60_000, { status: "failed", finishedAt: 62_000 }); // finished already: kept
      const h = await b.first.history("sch_1");
      expect(h.map((o) => [o.at, o.status, o.turnId, o.detail, o.finishedAt])).toEqual([
        [120_000, "skipped", undefined, "missed", 60_001],
        [60_000, "succeeded", "turn_1", "ok", 61_000],
      ]);
      expect(h[1]!.runId).toBe(won[0] ? "run_a" : "run_b");
      expect(await b.first.history("sch_1", 1)).toHaveLength(1);
    } finally {
      await b.close();
    }
  });

  test(`${name}: a running occurrence left by a stopped gateway is listed and retaken once, by its old run id`, async () => {
    const b = await open();
    try {
      await b.first.add(definition());
      const other = await b.second();
      const claim = { scheduleId: "sch_1", status: "running" as const, claimedBy: "gw-dead", claimedAt: 1 };
      await b.first.claim({ ...claim, at: 60_000, runId: "run_a" });
      await b.first.claim({ ...claim, at: 120_000, runId: "run_b" });
      await b.first.claim({ ...claim, at: 180_000, status: "skipped", runId: "run_c" });
      expect((await other.running()).map((o) => [o.at, o.runId, o.claimedBy])).toEqual([
        [60_000, "run_a", "gw-dead"],
        [120_000, "run_b", "gw-dead"],
      ]);
      const again = { status: "running" as const, claimedAt: 5 };
      const won = await Promise.all([
        b.first.retake("sch_1", 60_000, "run_a", { ...again, runId: "run_x", claimedBy: "gw-x" }),
        other.retake("sch_1", 60_000, "run_a", { ...again, runId: "run_y", claimedBy: "gw-y" }),
      ]);
      expect(won.filter(Boolean)).toHaveLength(1);
      const failed = { status: "failed" as const, finishedAt: 6, detail: "stopped" };
      expect(await other.retake("sch_1", 120_000, "run_wrong", failed)).toBe(false);
      expect(await other.retake("sch_1", 120_000, "run_b", failed)).toBe(true);
      expect(await other.retake("sch_1", 120_000, "run_b", failed)).toBe(false);
      expect(await other.retake("sch_1", 180_000, "run_c", failed)).toBe(false); // not running
      const h = await b.first.history("sch_1");
      expect(h.map((o) => [o.at, o.status, o.runId, o.claimedBy, o.finishedAt, o.detail])).toEqual([
        [180_000, "skipped", "run_c", "gw-dead", 1, undefined],
        [120_000, "failed", "run_b", "gw-dead", 6, "stopped"],
        [60_000, "running", won[0] ? "run_x" : "run_y", won[0] ? "gw-x" : "gw-y", undefined, undefined],
      ]);
    } finally {
      await b.close();
    }
  });

  test(`${name}: progress raises checkedThrough only, sets failures, backoff and the last outcome`, async () => {
    const b = await open();
    try {
      await b.first.add(definition());
      await b.first.progress("sch_1", { checkedThrough: 50_000, failures: 2, backoffUntil: 70_000 });
      await b.first.progress("sch_1", { checkedThrough: 40_000, lastOutcome: "failed", lastAt: 50_000 });
      let s = await b.first.get("sch_1");
      expect([s?.checkedThrough, s?.failures, s?.backoffUntil, s?.lastOutcome, s?.lastAt]).toEqual([
        50_000,
        2,
        70_000,
        "failed",
        50_000,
      ]);
      await b.first.progress("sch_1", { backoffUntil: null, failures: 0 });
      s = await b.first.get("sch_1");
      expect([s?.backoffUntil, s?.failures]).toEqual([undefined, 0]);
    } finally {
      await b.close();
    }
  });
}

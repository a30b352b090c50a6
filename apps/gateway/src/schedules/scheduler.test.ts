import { afterEach, describe, expect, test } from "bun:test";
import { openDatabase, type Database } from "@openassistant/core/db";
import { openSqliteReceipts, type ReceiptLog, type ReceiptReader } from "@openassistant/core/receipts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { join } from "node:path";
import { definition } from "../../test/contracts/schedule-store.ts";
import { createScheduler, type FireRequest, type FireResult, type Scheduler } from "./scheduler.ts";
import { createSqliteScheduleStore } from "./sqlite/store.ts";
import type { ScheduleStore } from "./store.ts";
import type { ScheduleDefinition } from "./types.ts";

const iso = (ms: number) => new Date(ms).toISOString();
const T = (s: string) => Date.parse(s);

interface World {
  clock: { t: number };
  store: ScheduleStore;
  receipts: ReceiptLog & ReceiptReader;
  scheduler: Scheduler;
  fired: Array<{ id: string; at: string; firedAt: string }>;
  alerts: string[];
  db: Database;
}

const opened: Database[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

function world(options: { path?: string; gatewayId?: string; result?: (r: FireRequest) => FireResult } = {}): World {
  const dir = makeTempDir("oa-scheduler-");
  const db = openDatabase(options.path ?? join(dir, "db.sqlite"));
  opened.push(db);
  const clock = { t: 0 };
  const store = createSqliteScheduleStore(db);
  const receipts = openSqliteReceipts(db, { keyDir: join(dir, "config") });
  const fired: World["fired"] = [];
  const alerts: string[] = [];
  const scheduler = createScheduler({
    store,
    receipts,
    now: () => clock.t,
    gatewayId: options.gatewayId ?? "gw-1",
    sessionOf: async () => "ses_1",
    fire: async (r) => {
      fired.push({ id: r.schedule.id, at: iso(r.at), firedAt: iso(clock.t) });
      return options.result?.(r) ?? { turnId: `turn_${fired.length}`, runIds: [`run_model_${fired.length}`], ok: true };
    },
    alert: async (s, text) => void alerts.push(`${s.createdBy}: ${text}`),
    log: () => {},
  });
  return { clock, store, receipts, scheduler, fired, alerts, db };
}

/** Moves the clock to each time and ticks there, waiting for the fires to record their outcome. */
async function runAt(w: World, times: readonly number[]) {
  for (const t of times) {
    w.clock.t = t;
    await w.scheduler.tick();
    await w.scheduler.idle();
  }
}

async function add(w: World, over: Partial<ScheduleDefinition>) {
  await w.store.add(definition(over));
}

describe("DST in Europe/Oslo", () => {
  test("a 02:30 daily job on the spring-forward night fires at 03:00 (02:30 does not exist), then at 02:30 again", async () => {
    const w = world();
    await add(w, { when: { cron: "30 2 * * *" }, createdAt: T("2026-03-27T12:00:00Z") });
    // Tick every 15 minutes across three nights (the controllable clock; no waiting).
    const ticks: number[] = [];
    for (let t = T("2026-03-27T12:00:00Z"); t <= T("2026-03-30T12:00:00Z"); t += 15 * 60_000) ticks.push(t);
    await runAt(w, ticks);
    expect(w.fired.map((f) => f.at)).toEqual([
      "2026-03-28T01:30:00.000Z", // 02:30 CET (UTC+1)
      "2026-03-29T01:00:00.000Z", // 03:00 CEST: the first instant after the gap
      "2026-03-30T00:30:00.000Z", // 02:30 CEST (UTC+2)
    ]);
  });

  test("on the fall-back night the 02:30 that happens twice fires once; 09:00 stays 09:00 local across the change", async () => {
    const w = world();
    await add(w, { id: "sch_night", when: { cron: "30 2 * * *" }, createdAt: T("2026-10-24T12:00:00Z") });
    await add(w, { id: "sch_morning", when: { cron: "0 0 9 * * *" }, createdAt: T("2026-10-24T12:00:00Z") });
    const ticks: number[] = [];
    for (let t = T("2026-10-24T12:00:00Z"); t <= T("2026-10-26T12:00:00Z"); t += 15 * 60_000) ticks.push(t);
    await runAt(w, ticks);
    expect(w.fired.filter((f) => f.id === "sch_night").map((f) => f.at)).toEqual([
      "2026-10-25T00:30:00.000Z", // the first 02:30 (CEST)
      "2026-10-26T01:30:00.000Z", // 02:30 CET
    ]);
    expect(w.fired.filter((f) => f.id === "sch_morning").map((f) => f.at)).toEqual([
      "2026-10-25T08:00:00.000Z", // 09:00 CET, after the change
      "2026-10-26T08:00:00.000Z",
    ]);
  });
});

describe("downtime across three occurrences (10:00, 11:00, 12:00 missed; back at 12:30)", () => {
  const hourly = (missed: "skip" | "once" | "all") =>
    ({
      when: { cron: "0 * * * *" },
      timeZone: "UTC",
      missed,
      graceMs: 6 * 3_600_000,
      createdAt: T("2026-11-26T09:30:00Z"),
    }) as const;

  async function downtime(missed: "skip" | "once" | "all") {
    const w = world();
    await add(w, hourly(missed));
    await runAt(w, [T("2026-11-26T09:30:00Z"), T("2026-11-26T12:30:00Z")]);
    const receipts = await w.receipts.query({ tool: "schedule.*" });
    return { w, lines: receipts.map((r) => `${r.toolPath} ${r.phase} ${r.callId.split("@")[1]}`) };
  }

  test("skip: nothing runs, a skipped receipt for each", async () => {
    const { w, lines } = await downtime("skip");
    expect(w.fired).toEqual([]);
    expect(lines).toEqual([
      "schedule.skipped denied 2026-11-26T10:00:00.000Z",
      "schedule.skipped denied 2026-11-26T11:00:00.000Z",
      "schedule.skipped denied 2026-11-26T12:00:00.000Z",
    ]);
    const reasons = (await w.receipts.query({ tool: "schedule.skipped" })).map((r) => r.reason);
    expect(reasons[0]).toBe("missed by 2.5 h while no gateway ran (missed-run policy skip)");
  });

  test("once: the newest runs once (caught up), the two before it are skipped", async () => {
    const { w, lines } = await downtime("once");
    expect(w.fired.map((f) => [f.at, f.firedAt])).toEqual([["2026-11-26T12:00:00.000Z", "2026-11-26T12:30:00.000Z"]]);
    expect(lines).toEqual([
      "schedule.skipped denied 2026-11-26T10:00:00.000Z",
      "schedule.skipped denied 2026-11-26T11:00:00.000Z",
      "schedule.fired started 2026-11-26T12:00:00.000Z",
      "schedule.fired succeeded 2026-11-26T12:00:00.000Z",
    ]);
    const fired = await w.receipts.query({ tool: "schedule.fired" });
    expect(fired[0]!.reason).toBe("caught up 30 min late after downtime (missed-run policy once)");
    // The success receipt names the turn and the runs it started.
    expect(fired[1]!.outputPreview).toBe("turn turn_1 answered; runs: run_model_1");
  });

  test("all: each of the three runs, in order, each with its receipts", async () => {
    const { w, lines } = await downtime("all");
    expect(w.fired.map((f) => f.at)).toEqual([
      "2026-11-26T10:00:00.000Z",
      "2026-11-26T11:00:00.000Z",
      "2026-11-26T12:00:00.000Z",
    ]);
    expect(lines.filter((l) => l.includes("succeeded"))).toHaveLength(3);
    expect(lines.filter((l) => l.includes("skipped"))).toHaveLength(0);
  });

  test("an occurrence older than the grace window is skipped whatever the policy", async () => {
    const w = world();
    await add(w, { ...hourly("all"), graceMs: 90 * 60_000 });
    await runAt(w, [T("2026-11-26T09:30:00Z"), T("2026-11-26T12:30:00Z")]);
    expect(w.fired.map((f) => f.at)).toEqual(["2026-11-26T11:00:00.000Z", "2026-11-26T12:00:00.000Z"]);
    const skipped = await w.receipts.query({ tool: "schedule.skipped" });
    expect(skipped.map((r) => [r.decidedBy, r.reason])).toEqual([
      ["schedule:grace window", "missed by 2.5 h while no gateway ran, past the grace window of 90 min"],
    ]);
  });
});

describe("one run per occurrence", () => {
  test("two gateways on one SQLite file, ticking at the same moments, fire each occurrence once", async () => {
    const path = join(makeTempDir("oa-two-gateways-"), "db.sqlite");
    const a = world({ path, gatewayId: "gw-a" });
    const b = world({ path, gatewayId: "gw-b" });
    await add(a, { when: { every: "1m" }, createdAt: T("2026-11-26T10:00:00Z") });
    for (let i = 1; i <= 5; i++) {
      const t = T("2026-11-26T10:00:00Z") + i * 60_000;
      a.clock.t = b.clock.t = t;
      await Promise.all([a.scheduler.tick(), b.scheduler.tick()]);
      await Promise.all([a.scheduler.idle(), b.scheduler.idle()]);
    }
    const all = [...a.fired, ...b.fired].map((f) => f.at).sort();
    expect(all).toEqual([1, 2, 3, 4, 5].map((i) => iso(T("2026-11-26T10:00:00Z") + i * 60_000)));
    const history = await a.store.history("sch_1");
    expect(history.map((o) => o.status)).toEqual(Array(5).fill("succeeded"));
  });
});

describe("failures back off and alert the creator", () => {
  test("each failure is receipted; occurrences inside the backoff are skipped; the third failure in a row alerts once", async () => {
    const w = world({ result: () => ({ turnId: "turn_x", runIds: [], ok: false, error: "the model is unreachable" }) });
    await add(w, { when: { every: "1m" }, timeZone: "UTC", createdAt: T("2026-11-26T10:00:00Z") });
    const ticks: number[] = [];
    for (let m = 1; m <= 30; m++) ticks.push(T("2026-11-26T10:00:00Z") + m * 60_000);
    await runAt(w, ticks);
    // Fails at 10:01 (wait 1 min: 10:02 is the next try), 10:02 (5 min: 10:03–10:06 skipped),
    // 10:07 (15 min: 10:08–10:21 skipped), 10:22 (1 h: the rest skipped).
    expect(w.fired.map((f) => f.at.slice(11, 16))).toEqual(["10:01", "10:02", "10:07", "10:22"]);
    const failed = await w.receipts.query({ tool: "schedule.failed" });
    expect(failed.map((r) => r.error)).toEqual(Array(4).fill("the model is unreachable"));
    const skipped = await w.receipts.query({ tool: "schedule.skipped" });
    expect(skipped[0]!.decidedBy).toBe("schedule:backoff");
    expect(w.alerts).toHaveLength(1);
    expect(w.alerts[0]).toStartWith('discord:42: Schedule "morning check" (sch_1) failed 3 times in a row');
    const s = await w.store.get("sch_1");
    expect([s?.failures, s?.lastOutcome]).toEqual([4, "failed"]);
  });

  test("a success resets the count and the backoff", async () => {
    let fail = true;
    const w = world({
      result: () =>
        fail ? { turnId: "t", runIds: [], ok: false, error: "boom" } : { turnId: "t", runIds: [], ok: true },
    });
    await add(w, { when: { every: "1m" }, timeZone: "UTC", createdAt: T("2026-11-26T10:00:00Z") });
    await runAt(w, [T("2026-11-26T10:01:00Z")]);
    fail = false;
    await runAt(w, [T("2026-11-26T10:02:00Z")]);
    const s = await w.store.get("sch_1");
    expect([s?.failures, s?.backoffUntil, s?.lastOutcome]).toEqual([0, undefined, "succeeded"]);
    expect(w.fired.map((f) => f.at.slice(11, 16))).toEqual(["10:01", "10:02"]);
  });
});

test("a paused schedule does not fire; a one-shot `at` fires once", async () => {
  const w = world();
  await add(w, { id: "sch_paused", when: { every: "1m" }, createdAt: T("2026-11-26T10:00:00Z") });
  await w.store.setPaused("sch_paused", true);
  await add(w, {
    id: "sch_once",
    when: { at: "2026-11-26T11:05" },
    timeZone: "Europe/Oslo",
    createdAt: T("2026-11-26T10:00:00Z"),
  });
  await runAt(w, [T("2026-11-26T10:03:00Z"), T("2026-11-26T10:05:00Z"), T("2026-11-26T10:06:00Z")]);
  expect(w.fired.map((f) => [f.id, f.at])).toEqual([["sch_once", "2026-11-26T10:05:00.000Z"]]);
});

test("occurrences while paused pass unrun and unreceipted; resumed, the next one runs on time, none is caught up", async () => {
  const w = world();
  await add(w, { when: { every: "1h" }, timeZone: "UTC", missed: "all", createdAt: T("2026-11-26T10:00:00Z") });
  await w.store.setPaused("sch_1", true);
  await runAt(w, [T("2026-11-26T11:00:00Z"), T("2026-11-26T12:00:00Z")]);
  await w.store.setPaused("sch_1", false);
  await runAt(w, [T("2026-11-26T12:30:00Z"), T("2026-11-26T13:00:00Z")]);
  expect(w.fired.map((f) => f.at)).toEqual(["2026-11-26T13:00:00.000Z"]);
  expect(await w.receipts.query({ tool: "schedule.skipped" })).toEqual([]);
});

import { expect, test } from "bun:test";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { connectPostgres } from "./connect.ts";
import { openEventBus } from "./events.ts";

const pg = usePostgres();

type Event = { type: string; runId: string };

/** Collects events and resolves `until(n)` once n have arrived. */
function inbox() {
  const got: Array<{ event: Event; origin: string }> = [];
  let wake: (() => void) | undefined;
  return {
    got,
    push: (event: Event, origin: string) => {
      got.push({ event, origin });
      wake?.();
    },
    async until(n: number) {
      while (got.length < n) await new Promise<void>((r) => (wake = r));
    },
  };
}

async function twoGateways() {
  const url = await pg.freshDatabase();
  const a = connectPostgres(url, { max: 2 });
  const b = connectPostgres(url, { max: 2 });
  return {
    a: openEventBus<Event>(a, "console_events", { origin: "gw_a" }),
    b: openEventBus<Event>(b, "console_events", { origin: "gw_b" }),
    sqlA: a,
    close: async () => (await a.close(), await b.close()),
  };
}

test("an event published by one gateway reaches the other's subscribers; a gateway's own events stay out", async () => {
  const g = await twoGateways();
  try {
    const atA = inbox();
    const atB = inbox();
    const subA = await g.a.subscribe(atA.push);
    const subB = await g.b.subscribe(atB.push);
    await g.a.publish({ type: "run.started", runId: "run_1" });
    await g.b.publish({ type: "run.finished", runId: "run_2" });
    await atB.until(1);
    await atA.until(1);
    expect(atB.got).toEqual([{ event: { type: "run.started", runId: "run_1" }, origin: "gw_a" }]);
    // A's own run.started was sent before B's event, on the same server: had it come back, it would be first.
    expect(atA.got).toEqual([{ event: { type: "run.finished", runId: "run_2" }, origin: "gw_b" }]);
    await subA.close();
    await subB.close();
  } finally {
    await g.close();
  }
});

test("published inside a transaction, an event goes out on COMMIT and never after a ROLLBACK", async () => {
  const g = await twoGateways();
  try {
    const atB = inbox();
    const sub = await g.b.subscribe(atB.push);
    await g.sqlA
      .begin(async (tx) => {
        await g.a.publish({ type: "rolled.back", runId: "run_x" }, tx);
        throw new Error("abort");
      })
      .catch(() => {});
    await g.sqlA.begin(async (tx) => {
      await g.a.publish({ type: "committed", runId: "run_y" }, tx);
    });
    await atB.until(1);
    expect(atB.got.map((m) => m.event.type)).toEqual(["committed"]);
    await sub.close();
  } finally {
    await g.close();
  }
});

test("an event over PostgreSQL's NOTIFY limit is refused, naming the channel, its size and what to do", async () => {
  const g = await twoGateways();
  try {
    await expect(g.a.publish({ type: "big", runId: "x".repeat(9000) })).rejects.toThrow(
      /event on "console_events" is 9\d{3} bytes, over PostgreSQL's NOTIFY limit of 7999: publish its id/,
    );
  } finally {
    await g.close();
  }
});

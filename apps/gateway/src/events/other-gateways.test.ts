import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createEventBus } from "./bus.ts";
import {
  CONSOLE_LIVE_TYPES,
  eventsFromOtherGateways,
  forwardToOtherGateways,
  type LiveSignal,
} from "./other-gateways.ts";

/** A promise with its resolve, to hold a step until the test lets it go. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((ok) => (open = ok));
  return { opened, open };
}

const settled = { type: "call.settled", runId: "run_1", outcome: { status: "succeeded" } } as never;

test("a signal goes out only once the receipts staged before it are durable, with the live kinds only", async () => {
  const events = createEventBus();
  const sent: LiveSignal[] = [];
  const commit = gate();
  const stop = forwardToOtherGateways({
    events,
    channel: { publish: async (s) => void sent.push(s) },
    durable: () => commit.opened,
    log: () => {},
  });
  events.emit({ type: "model.text", turnId: "t1", text: "secret-ish answer" });
  events.emit({ type: "run.started", turnId: "t1", runId: "run_1", code: "return 1" });
  events.emit(settled);
  await Bun.sleep(0);
  expect(sent).toEqual([]);
  commit.open();
  await stop();
  expect(sent).toEqual([{ types: ["run.started", "call.settled"] }]);
});

test("a busy gateway sends one signal at a time, carrying every kind seen meanwhile", async () => {
  const events = createEventBus();
  const sent: LiveSignal[] = [];
  let publishing = gate();
  const stop = forwardToOtherGateways({
    events,
    channel: {
      publish: async (s) => {
        sent.push(s);
        await publishing.opened;
      },
    },
    durable: async () => {},
    log: () => {},
  });
  events.emit(settled);
  await Bun.sleep(0);
  expect(sent).toHaveLength(1);
  for (let i = 0; i < 50; i++) events.emit(settled);
  events.emit({ type: "run.finished", turnId: "t1", runId: "run_1", ok: true });
  await Bun.sleep(0);
  expect(sent).toHaveLength(1);
  const first = publishing;
  publishing = gate();
  publishing.open();
  first.open();
  await stop();
  expect(sent).toEqual([{ types: ["call.settled"] }, { types: ["call.settled", "run.finished"] }]);
});

test("a failed signal is logged and the next kinds still go out", async () => {
  const events = createEventBus();
  const lines: string[] = [];
  const sent: LiveSignal[] = [];
  let fail = true;
  const stop = forwardToOtherGateways({
    events,
    channel: {
      publish: async (s) => {
        if (fail) throw new Error("connection lost");
        sent.push(s);
      },
    },
    durable: async () => {},
    log: (line) => lines.push(line),
  });
  events.emit(settled);
  await Bun.sleep(5);
  fail = false;
  events.emit({ type: "approval.decided", callId: "c1", decision: { decision: "approved", by: "ann" } });
  await stop();
  expect(lines).toEqual(["could not tell the other gateways' consoles about call.settled: connection lost"]);
  expect(sent).toEqual([{ types: ["approval.decided"] }]);
});

test("received signals pass only known kinds, once each, to every console stream", async () => {
  let deliver!: (s: LiveSignal) => void;
  const feed = await eventsFromOtherGateways(
    {
      subscribe: async (on) => {
        deliver = on;
        return async () => {};
      },
    },
    () => {},
  );
  const one: string[] = [];
  const two: string[] = [];
  feed.subscribe((t) => one.push(t));
  const leave = feed.subscribe((t) => two.push(t));
  deliver({ types: ["run.finished", "run.finished", "model.text", "__proto__"] as never });
  deliver({ nope: true } as never);
  leave();
  deliver({ types: ["approval.requested"] });
  expect(one).toEqual(["run.finished", "approval.requested"]);
  expect(two).toEqual(["run.finished"]);
  await feed.close();
});

test("the kinds that cross are exactly the ones the console's pages listen to (live.js)", () => {
  const live = readFileSync(join(import.meta.dir, "..", "console", "static", "live.js"), "utf8");
  const listened = /for \(const type of \[([^\]]+)\]\)\s*events\.addEventListener/.exec(live)?.[1];
  expect(listened).toBeDefined();
  expect([...listened!.matchAll(/"([^"]+)"/g)].map((m) => m[1])).toEqual([...CONSOLE_LIVE_TYPES]);
});

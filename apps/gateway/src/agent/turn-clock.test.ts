import { describe, expect, test } from "bun:test";
import { startTurnClock } from "./turn-clock.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("turn clock", () => {
  test("expires after its limit when never held", async () => {
    let expired = false;
    startTurnClock(30, () => (expired = true));
    await sleep(60);
    expect(expired).toBe(true);
  });

  test("nested holds stop it until the last release; time before and after adds up", async () => {
    let expiredAt = 0;
    const started = performance.now();
    const clock = startTurnClock(80, () => (expiredAt = performance.now()));
    await sleep(40);
    clock.hold();
    clock.hold(); // two approvals at once
    await sleep(100);
    clock.release();
    await sleep(40);
    expect(expiredAt).toBe(0); // one approval still pending
    clock.release();
    await sleep(80);
    expect(expiredAt).toBeGreaterThan(0);
    expect(expiredAt - started).toBeGreaterThanOrEqual(40 + 100 + 40 + 35);
  });

  test("stop() clears it for good; extra releases are ignored", async () => {
    let expired = false;
    const clock = startTurnClock(20, () => (expired = true));
    clock.release();
    clock.stop();
    clock.hold();
    clock.release();
    await sleep(50);
    expect(expired).toBe(false);
  });
});

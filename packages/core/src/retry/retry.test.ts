import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { jsonFromFreshProcess } from "@openassistant/testkit/fresh-process.ts";
import type { RetryPolicy } from "./policy.ts";
import { retrying } from "./retry.ts";

class Transient extends Error {}
class Final extends Error {}

/** A call that fails with each of `failures` in turn, then answers "ok". */
function failing(...failures: Error[]) {
  const calls = { count: 0 };
  const fn = async () => {
    const failure = failures[calls.count++];
    if (failure) throw failure;
    return "ok";
  };
  return { fn, calls };
}

const policy = (over: Partial<RetryPolicy> = {}): RetryPolicy & { waits: number[] } => {
  const waits: number[] = [];
  return {
    firstWaitMs: 1,
    maxWaitMs: 4,
    retryable: (e) => e instanceof Transient,
    until: Date.now() + 60_000,
    onWait: (_e, ms) => waits.push(ms),
    ...over,
    waits,
  };
};

describe("retrying", () => {
  test("retries retryable failures, each wait twice the one before up to the cap, and returns the answer", async () => {
    const { fn, calls } = failing(...Array.from({ length: 5 }, (_, i) => new Transient(`down ${i}`)));
    const p = policy();
    expect(await retrying(fn, p)).toBe("ok");
    expect(calls.count).toBe(6);
    expect(p.waits).toEqual([1, 2, 4, 4, 4]);
  });

  test("a failure that is not retryable is thrown at once, as it was, after any retries before it", async () => {
    const final = new Final("404");
    const later = failing(new Transient("down"), final);
    await expect(retrying(later.fn, policy())).rejects.toBe(final);
    expect(later.calls.count).toBe(2);
    const first = failing(final);
    await expect(retrying(first.fn, policy())).rejects.toBe(final);
    expect(first.calls.count).toBe(1);
  });

  test("a wait that would end after `until` is not begun: the last failure is thrown", async () => {
    const last = new Transient("still down");
    const { fn, calls } = failing(new Transient("down"), last);
    // The first wait (1 ms) ends before the deadline; the second (8 s) would not.
    const p = policy({ firstWaitMs: 1, factor: 8_000, maxWaitMs: 8_000, until: Date.now() + 4_000 });
    await expect(retrying(fn, p)).rejects.toBe(last);
    expect(p.waits).toEqual([1]);
    expect(calls.count).toBe(2);
  });

  test("jittered waits stay within ±20% of the exponential ones and never pass the cap", async () => {
    const { fn } = failing(...Array.from({ length: 8 }, () => new Transient("down")));
    const p = policy({ firstWaitMs: 1, maxWaitMs: 16, jitter: true });
    await retrying(fn, p);
    const plain = [1, 2, 4, 8, 16, 16, 16, 16];
    expect(p.waits).toHaveLength(plain.length);
    for (const [i, wait] of p.waits.entries()) {
      expect(wait).toBeGreaterThanOrEqual(plain[i]! * 0.8);
      expect(wait).toBeLessThanOrEqual(Math.min(plain[i]! * 1.2, 16));
    }
  });

  test("a call that succeeds at once does not load Effect", async () => {
    const script = [
      `const { retrying } = await import(${JSON.stringify(join(import.meta.dir, "index.ts"))});`,
      `await retrying(async () => 1, { firstWaitMs: 1, maxWaitMs: 1, retryable: () => true, until: Date.now() + 1000 });`,
      "const before = Object.keys(require.cache).some((k) => /node_modules\\/(\\.bun\\/[^/]+\\/node_modules\\/)?effect\\//.test(k));",
      "let n = 0;",
      `await retrying(async () => { if (n++ === 0) throw new Error("down"); return 1; }, { firstWaitMs: 1, maxWaitMs: 1, retryable: () => true, until: Date.now() + 10000 });`,
      "const after = Object.keys(require.cache).some((k) => /node_modules\\/(\\.bun\\/[^/]+\\/node_modules\\/)?effect\\//.test(k));",
      "console.log(JSON.stringify({ before, after }));",
    ].join("\n");
    expect(await jsonFromFreshProcess(script, { cwd: import.meta.dir })).toEqual({ before: false, after: true });
  }, 30_000);
});

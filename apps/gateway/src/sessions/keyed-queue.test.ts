import { describe, expect, test } from "bun:test";
import { createKeyedQueue } from "./keyed-queue.ts";

describe("createKeyedQueue", () => {
  test("runs tasks of one key one at a time in order, other keys alongside", async () => {
    const queue = createKeyedQueue();
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const a1 = queue.run("a", async () => {
      log.push("a1 start");
      await gate;
      log.push("a1 end");
    });
    const a2 = queue.run("a", async () => log.push("a2"));
    const b1 = queue.run("b", async () => log.push("b1"));
    await b1;
    expect(log).toEqual(["a1 start", "b1"]);
    release();
    await Promise.all([a1, a2]);
    expect(log).toEqual(["a1 start", "b1", "a1 end", "a2"]);
  });

  test("a failed task rejects its own promise and does not stop the next", async () => {
    const queue = createKeyedQueue();
    const failed = queue.run("a", async () => {
      throw new Error("boom");
    });
    const next = queue.run("a", async () => "ran");
    await expect(failed).rejects.toThrow("boom");
    expect(await next).toBe("ran");
  });
});

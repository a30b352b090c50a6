import { describe, expect, test } from "bun:test";
import { createLiveMessage } from "./live-message.ts";

describe("live message", () => {
  test("skips intermediate states and never re-sends the same text", async () => {
    const edits: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const msg = { edit: async (t: string) => (edits.push(t), edits.length === 1 ? gate : undefined) };
    const live = createLiveMessage(Promise.resolve(msg), "a", () => {});
    live.set("a");
    live.set("b");
    await Bun.sleep(1);
    live.set("c");
    live.set("d");
    release();
    await live.flush();
    expect(edits).toEqual(["b", "d"]);
  });

  test("a failing edit is logged once and stops further edits", async () => {
    const logs: string[] = [];
    let calls = 0;
    const live = createLiveMessage(
      Promise.resolve({ edit: async () => (calls++, Promise.reject(new Error("Unknown Message"))) }),
      "x",
      (m) => logs.push(m),
    );
    live.set("y");
    await live.flush();
    live.set("z");
    await live.flush();
    expect(calls).toBe(1);
    expect(logs).toEqual(["status message edit failed"]);
  });
});

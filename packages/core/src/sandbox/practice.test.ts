import { expect, test } from "bun:test";
import { practise } from "./practice.ts";

test("every practice run succeeds, and each waits for the child's go-ahead first", async () => {
  const order: string[] = [];
  let release: (() => void) | undefined;
  const between = async () => {
    order.push("asked");
    // The second go-ahead is held back: no run may start until it is given.
    if (order.filter((s) => s === "asked").length === 2) await new Promise<void>((r) => (release = r));
  };
  const practising = practise(3, between);
  while (!release) await Bun.sleep(1);
  const asked = order.length;
  await Bun.sleep(20);
  expect(order.length).toBe(asked);
  release();
  // A snippet that failed would stop the practice early: all three runs count.
  expect(await practising).toBe(3);
  expect(order).toEqual(["asked", "asked", "asked"]);
});

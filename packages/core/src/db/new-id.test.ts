import { expect, test } from "bun:test";
import { newId } from "./new-id.ts";

test("ids are prefixed, compact, unique and time-ordered", () => {
  const ids = Array.from({ length: 1000 }, () => newId("call"));
  expect(ids[0]).toMatch(/^call_[0-9a-f]{32}$/);
  expect(new Set(ids).size).toBe(1000);
  expect([...ids].sort()).toEqual(ids);
});

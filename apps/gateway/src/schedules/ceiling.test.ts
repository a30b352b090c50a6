import { expect, test } from "bun:test";
import { createHookSet } from "@openassistant/core/hooks";
import { openDatabase } from "@openassistant/core/db";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { join } from "node:path";
import { definition } from "../../test/contracts/schedule-store.ts";
import { withCeilings } from "./ceiling.ts";
import { holdResumedCeilings } from "./gateway-schedules.ts";
import { createSqliteScheduleStore } from "./sqlite/store.ts";

const set = createHookSet([]);

/** What the ceiling hook answers for a call to `path` asked by `userId`. */
function answer(ceilings: Map<string, readonly string[] | undefined>, userId: string, path: string) {
  const hook = withCeilings(ceilings)(set).byEvent["tool.before"][0]!;
  return hook.fn(
    { path, callId: "call_1", input: {}, approval: "auto" },
    { pluginId: hook.pluginId, requestedBy: { userId, roles: [] }, signal: new AbortController().signal },
  );
}

test("no schedule runs here: the hook set is the plugins' own (the crossing path pays nothing)", () => {
  expect(withCeilings(new Map())(set)).toBe(set);
});

test("while one runs: the ceiling hook comes first and answers only for schedules' runs", () => {
  const ceilings = new Map<string, readonly string[] | undefined>([
    ["sch_a", ["notes.read", "mail.*"]],
    ["sch_open", undefined],
  ]);
  const wrapped = withCeilings(ceilings)(set);
  expect(wrapped.byEvent["tool.before"].map((h) => h.pluginId)).toEqual(["schedules"]);
  expect(withCeilings(ceilings)(set)).not.toBe(set);
  expect(answer(ceilings, "schedule:sch_a", "notes.read")).toBeUndefined();
  expect(answer(ceilings, "schedule:sch_a", "mail.send")).toBeUndefined();
  expect(answer(ceilings, "schedule:sch_a", "$search")).toBeUndefined();
  expect(answer(ceilings, "schedule:sch_a", "notes.write")).toEqual({
    deny: "notes.write is outside the tools this schedule may call (notes.read, mail.*); the schedule's creator can widen them by creating it again with `tools`",
  });
  expect(answer(ceilings, "schedule:sch_open", "anything.at_all")).toBeUndefined();
  expect(answer(ceilings, "schedule:sch_gone", "notes.read")).toEqual({
    deny: "schedule sch_gone is not running in this gateway",
  });
  expect(answer(ceilings, "discord:42", "notes.write")).toBeUndefined(); // a person's run: not the ceiling's business
});

test("runs resumed at start for a schedule keep its ceiling (a removed schedule's: no tool); pinned", async () => {
  const db = openDatabase(join(makeTempDir("oa-ceiling-"), "db.sqlite"));
  const store = createSqliteScheduleStore(db);
  await store.add(definition({ id: "sch_live", ceiling: ["notes.read"] }));
  await store.add(definition({ id: "sch_removed", ceiling: ["notes.read"] }));
  await store.remove("sch_removed", 5);
  const ceilings = new Map<string, readonly string[] | undefined>();
  const pinned = await holdResumedCeilings(
    ["schedule:sch_live", "discord:42", undefined, "schedule:sch_removed", "schedule:sch_unknown"],
    store,
    ceilings,
  );
  expect([...pinned].sort()).toEqual(["sch_live", "sch_removed", "sch_unknown"]);
  expect(Object.fromEntries(ceilings)).toEqual({ sch_live: ["notes.read"], sch_removed: [], sch_unknown: [] });
  db.close();
});

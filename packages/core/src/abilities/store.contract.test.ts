import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { openDatabase } from "../db/open.ts";
import { connectPostgres } from "../db/postgres/connect.ts";
import { newAbilityRun } from "./engine.ts";
import { createPgAbilityRunStore } from "./postgres/store.ts";
import type { AbilityRunStore } from "./run.ts";
import { createSqliteAbilityRunStore } from "./sqlite/store.ts";

const pg = usePostgres();
const connections: Array<ReturnType<typeof connectPostgres>> = [];
const connect = (url: string) => {
  const sql = connectPostgres(url, { max: 1 });
  connections.push(sql);
  return sql;
};
afterAll(async () => {
  for (const sql of connections) await sql.end();
});

const BACKENDS: Array<{
  name: string;
  open: () => Promise<{ first: AbilityRunStore; second: () => AbilityRunStore }>;
}> = [
  {
    name: "SQLite",
    open: async () => {
      const file = join(makeTempDir("oa-ability-store-"), "oa.sqlite");
      return {
        first: createSqliteAbilityRunStore(openDatabase(file)),
        second: () => createSqliteAbilityRunStore(openDatabase(file)),
      };
    },
  },
  {
    name: "PostgreSQL",
    open: async () => {
      const url = await pg.freshDatabase();
      return {
        first: createPgAbilityRunStore(connect(url)),
        second: () => createPgAbilityRunStore(connect(url)),
      };
    },
  },
];

const pinned = {
  name: "deploy",
  description: "d",
  hash: "h",
  steps: [{ id: "a", type: "tool" as const, tool: "x.y", input: {}, needs: [] }],
};

for (const backend of BACKENDS)
  describe(`ability run store: ${backend.name}`, () => {
    test("a saved run is read back whole by another connection; a save replaces it; list filters by status and session, newest first", async () => {
      const { first, second } = await backend.open();
      const a = newAbilityRun({ id: "ability_a", ability: pinned, inputs: { v: 1 }, sessionId: "s1", now: 1 });
      const b = newAbilityRun({ id: "ability_b", ability: pinned, inputs: {}, sessionId: "s2", now: 2 });
      await first.save(a);
      await first.save(b);
      a.steps[0]!.status = "completed";
      a.steps[0]!.output = { url: "u" };
      a.status = "completed";
      await first.save(a);
      const other = second();
      expect(await other.get("ability_a")).toEqual(JSON.parse(JSON.stringify(a)));
      expect(await other.get("nope")).toBeUndefined();
      expect((await other.list()).map((r) => r.id)).toEqual(["ability_b", "ability_a"]);
      expect((await other.list({ status: "running" })).map((r) => r.id)).toEqual(["ability_b"]);
      expect((await other.list({ sessionId: "s1" })).map((r) => r.id)).toEqual(["ability_a"]);
      expect((await other.list({ status: "running", sessionId: "s1" })).map((r) => r.id)).toEqual([]);
      expect((await other.list({ limit: 1 })).map((r) => r.id)).toEqual(["ability_b"]);
    }, 30_000);
  });

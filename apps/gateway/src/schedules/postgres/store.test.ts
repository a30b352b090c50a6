import { expect, test } from "bun:test";
import { connectPostgres, schemaVersions } from "@openassistant/core/db";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { definition, describeScheduleStoreContract } from "../../../test/contracts/schedule-store.ts";
import { createPgScheduleStore } from "./store.ts";

const pg = usePostgres();

describeScheduleStoreContract("postgres", async () => {
  const url = await pg.freshDatabase();
  const handles = [connectPostgres(url, { max: 2 })];
  return {
    first: await createPgScheduleStore(handles[0]!),
    async second() {
      const sql = connectPostgres(url, { max: 2 });
      handles.push(sql);
      return createPgScheduleStore(sql);
    },
    async close() {
      for (const sql of handles) await sql.close();
    },
  };
});

test("the tables are a versioned migration; U+0000 in a prompt is kept as U+2400", async () => {
  const url = await pg.freshDatabase();
  const sql = connectPostgres(url, { max: 2 });
  try {
    const store = await createPgScheduleStore(sql);
    expect((await schemaVersions(sql)).get("schedules")).toBe(1);
    await store.add(definition({ name: "a\u0000b" }));
    expect((await store.get("sch_1"))?.name).toBe("a\u2400b");
  } finally {
    await sql.close();
  }
});

import { expect, test } from "bun:test";
import { connectPostgres, schemaVersions } from "@openassistant/core/db";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { describeRunCodeStoreContract } from "../../../test/contracts/run-code-store.ts";
import { createPgRunCodeStore } from "./run-code.ts";

const pg = usePostgres();

describeRunCodeStoreContract("postgres", async () => {
  const url = await pg.freshDatabase();
  const handles = [connectPostgres(url, { max: 2 })];
  return {
    first: await createPgRunCodeStore(handles[0]!),
    async second() {
      const sql = connectPostgres(url, { max: 2 });
      handles.push(sql);
      return createPgRunCodeStore(sql);
    },
    async close() {
      for (const sql of handles) await sql.close();
    },
  };
});

test("the table is a versioned migration; U+0000 is kept as U+2400; a refused insert is reported, not thrown", async () => {
  const url = await pg.freshDatabase();
  const sql = connectPostgres(url, { max: 2 });
  const errors: string[] = [];
  try {
    const store = await createPgRunCodeStore(sql, (line) => errors.push(line));
    expect((await schemaVersions(sql)).get("console")).toBe(1);
    store.record("run_nul", "turn_1", "a\u0000b");
    expect(await store.codeOf("run_nul")).toBe("a\u2400b");
    await sql`DROP TABLE console_run_code`;
    store.record("run_lost", "turn_2", "return 2;");
    await store.flush();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("the console could not keep the code of run run_lost");
  } finally {
    await sql.close();
  }
});

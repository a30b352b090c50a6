import { expect, test } from "bun:test";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { describeRunJournalContract, type RunJournalBackend } from "../../../test/contracts/run-journal.ts";
import { connectPostgres } from "../../db/postgres/connect.ts";
import { migrate } from "../../db/postgres/migrate.ts";
import { openPostgresRunJournal, RUN_JOURNAL_MIGRATIONS } from "./run-journal.ts";

const pg = usePostgres();

/** A fresh database on the test file's real PostgreSQL; reopening is a new pool on it. */
async function postgresBackend(url?: string): Promise<RunJournalBackend> {
  const db = url ?? (await pg.freshDatabase());
  const sql = connectPostgres(db, { max: 2 });
  await migrate(sql, "runs", RUN_JOURNAL_MIGRATIONS);
  const journal = openPostgresRunJournal(sql);
  return {
    journal,
    reopen: () => postgresBackend(db),
    close: async () => {
      await journal.close();
      await sql.close();
    },
  };
}

describeRunJournalContract("PostgreSQL", () => postgresBackend());

test("the begin of a new run commits in one transaction with what onBegin writes; a failing onBegin rolls both back", async () => {
  const url = await pg.freshDatabase();
  const sql = connectPostgres(url, { max: 2 });
  try {
    await migrate(sql, "runs", RUN_JOURNAL_MIGRATIONS);
    await sql`CREATE TABLE jobs (run_id TEXT PRIMARY KEY)`;
    let refuse = false;
    const journal = openPostgresRunJournal(sql, {
      onBegin: async (tx, runs) => {
        for (const r of runs) await tx`INSERT INTO jobs (run_id) VALUES (${r.runId})`;
        if (refuse) throw new Error("the queue refused the job");
      },
    });
    await journal.batch(() => journal.begin({ runId: "kept", seed: [1, 2, 3, 4] }));
    refuse = true;
    await expect(journal.batch(() => journal.begin({ runId: "refused", seed: [1, 2, 3, 4] }))).rejects.toThrow(
      "the queue refused the job",
    );
    // A resumed run writes no begin: onBegin is not asked again.
    await journal.batch(() => journal.resumed("kept"));
    expect((await sql`SELECT run_id FROM jobs`).map((r: { run_id: string }) => r.run_id)).toEqual(["kept"]);
    expect(await journal.read("refused")).toBeUndefined();
    expect(await journal.read("kept")).toMatchObject({ seed: [1, 2, 3, 4], resumes: 1 });
    await journal.close();
  } finally {
    await sql.close();
  }
});

import { migrate, type Postgres } from "@openassistant/core/db";
import type { RunCodeStore } from "../run-code.ts";

/** The console's table on PostgreSQL, as versioned migrations (the columns of sqlite/run-code.ts). */
export const CONSOLE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE console_run_code (
    run_id TEXT PRIMARY KEY,
    turn_id TEXT,
    code TEXT NOT NULL,
    at BIGINT NOT NULL
  );
  `,
];

/**
 * The console's run code (run-code.ts) on PostgreSQL, migrated first. `record` is called from an
 * event listener and cannot wait: the inserts run in the background one after another, `codeOf`
 * waits for those still under way (a run page opened right after its run shows the code), and an insert
 * the database refused is reported through `onError`.
 */
export async function createPgRunCodeStore(
  sql: Postgres,
  onError: (line: string) => void = () => {},
): Promise<RunCodeStore & { flush(): Promise<void> }> {
  await migrate(sql, "console", CONSOLE_MIGRATIONS);
  // One insert at a time, in the order recorded: on a pool, two inserts of one run could commit in
  // either order, and the first recorded must stay.
  let tail: Promise<void> = Promise.resolve();
  const flush = () => tail;
  return {
    record(runId, turnId, code) {
      // PostgreSQL text cannot hold U+0000 (as receipts do: stored as U+2400).
      const text = code.replaceAll("\u0000", "\u2400");
      tail = tail.then(() =>
        sql`INSERT INTO console_run_code (run_id, turn_id, code, at)
        VALUES (${runId}, ${turnId}, ${text}, ${Date.now()}) ON CONFLICT (run_id) DO NOTHING`.then(
          () => {},
          (e: unknown) => onError(`the console could not keep the code of run ${runId}: ${(e as Error).message}`),
        ),
      );
    },
    async codeOf(runId) {
      await flush();
      const rows: Array<{ code: string }> = await sql`SELECT code FROM console_run_code WHERE run_id = ${runId}`;
      return rows[0]?.code;
    },
    flush,
  };
}

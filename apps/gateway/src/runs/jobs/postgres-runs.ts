import { connectPostgres, type Postgres } from "@openassistant/core/db";
import { openPostgresRunJournal, type RunJournal } from "@openassistant/core/receipts";
import { openRunJobs, type RunJobs } from "./run-jobs.ts";

/** The runs of gateways sharing one PostgreSQL database: their journal there, and each run a job. */
export interface SharedRuns {
  readonly journal: RunJournal;
  readonly jobs: RunJobs;
  /** Commits the journal's queued batches, then stops the jobs (runs still held stay claimed until their heartbeat lapses). */
  close(): Promise<void>;
}

/** Pool size of pg-boss's own connections (fetching, heartbeats, its supervisor). */
const JOB_CONNECTIONS = 3;

/**
 * Starts the jobs (pg-boss on its own Bun.SQL pool) and opens the journal on the stores' pool (its
 * table migrated with the other stores, `open-stores.ts`), each new run's job sent and claimed in its first journal
 * transaction (`run-jobs.ts`).
 */
export async function openSharedRuns(url: string, sql: Postgres, log: (line: string) => void): Promise<SharedRuns> {
  const jobs = await openRunJobs(url, (u) => connectPostgres(u, { max: JOB_CONNECTIONS }), { log });
  const journal = openPostgresRunJournal(sql, { onBegin: jobs.onBegin });
  return {
    journal,
    jobs,
    async close() {
      try {
        await journal.close();
      } finally {
        await jobs.close();
      }
    },
  };
}

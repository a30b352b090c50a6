import { openPostgresApprovals } from "@openassistant/core/approvals";
import { checkPostgres, connectPostgres, migrate, type Postgres, schemaVersions } from "@openassistant/core/db";
import {
  openPostgresReceipts,
  RUN_JOURNAL_MIGRATIONS,
  type ReceiptLog,
  type ReceiptReader,
  type SecretSink,
} from "@openassistant/core/receipts";
import { createPgRunCodeStore } from "../console/postgres/run-code.ts";
import type { RunCodeStore } from "../console/run-code.ts";
import { createPgScheduleStore } from "../schedules/postgres/store.ts";
import type { ScheduleStore } from "../schedules/store.ts";
import type { SessionStore } from "../sessions/store.ts";
import { createPgSessionStore } from "../sessions/postgres/store.ts";

/** Every store the gateway keeps, on one PostgreSQL database (`storage.url`). */
export interface PostgresStores {
  readonly receipts: ReceiptLog & ReceiptReader;
  readonly approvals: Awaited<ReturnType<typeof openPostgresApprovals>>;
  readonly sessions: SessionStore;
  /** The console's code of each run. */
  readonly runCode: RunCodeStore;
  /** #33: schedules and their occurrences. */
  readonly schedules: ScheduleStore;
  /** The connection pool the stores share (surfaces open their own stores on it). */
  readonly sql: Postgres;
  /** Each store's schema version after migrating (`receipts`, `approvals`, `sessions`, `console`, `schedules`). */
  readonly versions: ReadonlyMap<string, number>;
  /** Commits staged receipts, then closes the connections. */
  close(): Promise<void>;
}

export interface OpenPostgresStoresOptions {
  /** The config dir holding `receipts.key` (the same key file on every gateway of the database). */
  readonly keyDir?: string;
  readonly secrets?: SecretSink;
  /** Connections in the pool (default 10). */
  readonly maxConnections?: number;
  /** Where a write made in the background and refused is reported (the console's run code). */
  readonly log?: (line: string) => void;
}

/**
 * Connects to `url`, checks the connection (an error names host, port and database, never the
 * password), applies each store's migrations (refusing a schema newer than this code) and opens
 * the receipt log and reader, the approval stores and the session store on it. What a storage
 * factory calls when `storage.url` is set; SQLite stays the default when it is not.
 */
export async function openPostgresStores(
  url: string,
  options: OpenPostgresStoresOptions = {},
): Promise<PostgresStores> {
  const sql = connectPostgres(url, { max: options.maxConnections });
  try {
    await checkPostgres(sql, url);
    const sessions = await createPgSessionStore(sql);
    const receipts = await openPostgresReceipts(sql, { keyDir: options.keyDir, secrets: options.secrets });
    const approvals = await openPostgresApprovals(sql);
    const runCode = await createPgRunCodeStore(sql, options.log);
    const schedules = await createPgScheduleStore(sql);
    // #31: the run journal's table (the journal itself opens with the runs' jobs, runs/jobs/).
    await migrate(sql, "runs", RUN_JOURNAL_MIGRATIONS);
    const versions = await schemaVersions(sql);
    return {
      receipts,
      approvals,
      sessions,
      runCode,
      schedules,
      sql,
      versions,
      async close() {
        try {
          await runCode.flush();
          await receipts.close();
          await approvals.close();
        } finally {
          await sql.close();
        }
      },
    };
  } catch (e) {
    await sql.close();
    throw e;
  }
}

import type { Postgres } from "../../db/postgres/connect.ts";
import type { ReceiptLog, ReceiptReader } from "../port.ts";
import { overview } from "./overview.ts";
import {
  byRuns,
  conversationKeys,
  conversationOf,
  listConversations,
  listRuns,
  queryReceipts,
  turnOfRun,
} from "./reads.ts";
import { openPostgresReceiptLog, type PostgresReceiptOptions } from "./store.ts";

/**
 * The PostgreSQL backend of the receipt ports on `sql` (the caller closes `sql`): migrates the
 * receipts schema, then every read first waits for what this process staged before it to be committed.
 */
export async function openPostgresReceipts(
  sql: Postgres,
  options: PostgresReceiptOptions = {},
): Promise<ReceiptLog & ReceiptReader> {
  const log = await openPostgresReceiptLog(sql, options);
  const synced =
    <A extends unknown[], T>(read: (...args: A) => Promise<T>) =>
    async (...args: A): Promise<T> => {
      // What was staged before this read, committed (not "nothing staged at all": with many runs
      // staging, that moment may not come for a long while, and each read of a turn waited for it).
      await log.durable();
      return read(...args);
    };
  return {
    stage: log.stage,
    durable: log.durable,
    append: log.append,
    verifyRun: log.verifyRun,
    verify: log.verify,
    info: log.info,
    close: log.close,
    byRun: synced((runId: string) => byRuns(sql, [runId])),
    byRuns: synced((runIds: readonly string[]) => byRuns(sql, runIds)),
    query: synced((q) => queryReceipts(sql, q)),
    runs: synced((filter) => listRuns(sql, filter)),
    conversations: synced(() => listConversations(sql)),
    conversationOf: synced((sessionId: string | undefined) => conversationOf(sql, sessionId)),
    conversationKeys: synced((ids: readonly string[]) => conversationKeys(sql, ids)),
    turnOfRun: synced((runId: string, sessionId: string | undefined, startedAt: number) =>
      turnOfRun(sql, runId, sessionId, startedAt),
    ),
    overview: synced((period, now: number) => overview(sql, period, now)),
  };
}

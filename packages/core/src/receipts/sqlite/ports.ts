import type { Database } from "bun:sqlite";
import type { ReceiptLog, ReceiptReader } from "../port.ts";
import { overview } from "./overview.ts";
import { conversationKeys, conversationOf, listConversations, listRuns, turnOfRun } from "./runs.ts";
import { createSqliteReceiptStore, type SqliteReceiptStore, type SqliteReceiptStoreOptions } from "./store.ts";

/** The SQLite backend of the receipt ports: one store on `db` (the caller closes `db`). */
export function openSqliteReceipts(db: Database, options: SqliteReceiptStoreOptions = {}): ReceiptLog & ReceiptReader {
  return sqliteReceiptPorts(createSqliteReceiptStore(db, options), db);
}

/**
 * The ports over an open store. `stage` and `durable` are the store's own functions (the crossing
 * path pays nothing for the port); the rest answer from SQLite after getting staged receipts in.
 */
export function sqliteReceiptPorts(store: SqliteReceiptStore, db: Database): ReceiptLog & ReceiptReader {
  const settle = <T>(work: () => T): Promise<T> => {
    try {
      return Promise.resolve(work());
    } catch (e) {
      return Promise.reject(e);
    }
  };
  // Waits for the fold worker without blocking the event loop (a busy host), then reads what is committed.
  const synced = async <T>(read: () => T): Promise<T> => {
    await store.settled();
    return read();
  };
  return {
    stage: store.stage,
    durable: store.durable,
    append: (draft) => settle(() => store.append(draft)),
    verifyRun: (runId) => synced(() => store.verifyRun(runId)),
    verify: () => synced(() => store.verify()),
    info: () => settle(() => store.info()),
    close: () => settle(() => store.close()),
    byRun: (runId) => synced(() => store.byRun(runId)),
    byRuns: (runIds) => synced(() => runIds.flatMap((id) => store.byRun(id))),
    query: (q) => synced(() => store.query(q)),
    runs: (filter) => synced(() => listRuns(db, filter)),
    conversations: () => synced(() => listConversations(db)),
    conversationOf: (sessionId) => synced(() => conversationOf(db, sessionId)),
    conversationKeys: (sessionIds) => synced(() => conversationKeys(db, sessionIds)),
    turnOfRun: (runId, sessionId, startedAt) => synced(() => turnOfRun(db, runId, sessionId, startedAt)),
    overview: (period, now) => synced(() => overview(db, period, now)),
  };
}

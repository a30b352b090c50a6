import { existsSync } from "node:fs";
import { openSqliteApprovals } from "@openassistant/core/approvals";
import { hasTable, openDatabase, probeWritable } from "@openassistant/core/db";
import { openSqliteReceipts } from "@openassistant/core/receipts";
import { createRunCodeStore } from "../../console/sqlite/run-code.ts";
import { createSqliteScheduleStore } from "../../schedules/sqlite/store.ts";
import { createSessionStore } from "../../sessions/sqlite/store.ts";
import type { GatewayStores, ReceiptsOnly, StorageBackend, StorageOptions } from "../backend.ts";

/** One SQLite file holds every store (receipts, approvals, sessions; surfaces' and the console's tables). */
export const sqliteStorage: StorageBackend = {
  open: openSqliteStorage,
  probeWritable(location) {
    const db = openDatabase(location);
    try {
      probeWritable(db);
    } finally {
      db.close();
    }
  },
  exists: (location) => existsSync(location),
  describe: (location) => location,
  hasReceipts(location) {
    const db = openDatabase(location);
    try {
      return hasTable(db, "receipts");
    } finally {
      db.close();
    }
  },
  async openReceipts(location, keyDir) {
    const db = openDatabase(location);
    try {
      const receipts = openSqliteReceipts(db, keyDir ? { keyDir } : {});
      return { receipts, close: closing(db, () => receipts.close()) } satisfies ReceiptsOnly;
    } catch (e) {
      db.close();
      throw e;
    }
  },
};

async function openSqliteStorage(options: StorageOptions): Promise<GatewayStores> {
  const db = openDatabase(options.location);
  const opened: Array<{ close(): unknown }> = [];
  try {
    const receipts = openSqliteReceipts(db, { keyDir: options.keyDir, journal: true, secrets: options.secrets });
    opened.push(receipts);
    const approvals = openSqliteApprovals(db);
    opened.push(approvals);
    const sessions = createSessionStore(db);
    return {
      db,
      receipts,
      approvals,
      sessions,
      runCode: createRunCodeStore(db),
      schedules: createSqliteScheduleStore(db),
      openSurfaceStore: (backends) => backends.sqlite(db),
      close: closing(db, async () => {
        await receipts.close();
        await approvals.close();
      }),
    };
  } catch (e) {
    // A refused key file or a broken database: what opened is closed, then the error is reported.
    for (const store of opened.reverse())
      try {
        await store.close();
      } catch {
        // the open's own error is the one to report
      }
    db.close();
    throw e;
  }
}

/** Closes the stores, then the database, once. */
function closing(db: { close(): void }, closeStores: () => Promise<unknown>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () =>
    (done ??= (async () => {
      try {
        await closeStores();
      } finally {
        db.close();
      }
    })());
}

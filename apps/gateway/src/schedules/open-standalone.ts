import { connectPostgres, checkPostgres, openDatabase } from "@openassistant/core/db";
import type { ReceiptLog } from "@openassistant/core/receipts";
import type { ChosenStorage } from "../storage/index.ts";
import { createPgScheduleStore } from "./postgres/store.ts";
import type { AbilityCatalog } from "./input.ts";
import { createSchedules, type Schedules } from "./service.ts";
import { createSqliteScheduleStore } from "./sqlite/store.ts";

/**
 * The schedules outside a running gateway (the CLI): the store on the configured storage and the
 * receipts (keyed, no journal) where `schedule.created` is recorded. A running gateway sees the
 * change at its next tick: the store is shared.
 */
export async function openStandaloneSchedules(
  storage: ChosenStorage,
  keyDir: string,
  /** The abilities an ability schedule may name (the project's); absent: ability targets are refused. */
  abilities?: () => Promise<AbilityCatalog>,
): Promise<{ schedules: Schedules; close(): Promise<void> }> {
  const receipts = await storage.backend.openReceipts(storage.location, keyDir);
  const log: Pick<ReceiptLog, "stage" | "durable"> = receipts.receipts;
  try {
    if (storage.name === "postgres") {
      const sql = connectPostgres(storage.location, { max: 2 });
      await checkPostgres(sql, storage.location);
      const store = await createPgScheduleStore(sql);
      return {
        schedules: createSchedules({ store, receipts: log, now: Date.now, ...(abilities ? { abilities } : {}) }),
        async close() {
          await receipts.close();
          await sql.close();
        },
      };
    }
    const db = openDatabase(storage.location);
    return {
      schedules: createSchedules({
        store: createSqliteScheduleStore(db),
        receipts: log,
        now: Date.now,
        ...(abilities ? { abilities } : {}),
      }),
      async close() {
        await receipts.close();
        db.close();
      },
    };
  } catch (e) {
    await receipts.close();
    throw e;
  }
}

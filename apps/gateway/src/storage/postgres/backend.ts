import type { ApprovalStore } from "@openassistant/core/approvals";
import {
  checkPostgres,
  connectPostgres,
  describeUrl,
  type EventBus,
  openEventBus,
  schemaVersions,
} from "@openassistant/core/db";
import { openPostgresReceipts } from "@openassistant/core/receipts";
import type { LiveSignal } from "../../events/other-gateways.ts";
import { openPostgresStores } from "../../postgres/open-stores.ts";
import { openSharedRuns } from "../../runs/jobs/postgres-runs.ts";
import { postgresHealth } from "./health.ts";
import type { GatewayStores, ReceiptsOnly, StorageBackend } from "../backend.ts";

/**
 * Every store on one PostgreSQL database (`storage.url`, docs/scaling.md): `location` is the URL.
 * Several gateways may share it; each migrates what is missing at start and refuses a schema newer
 * than its code. No SQLite handle: surfaces with a store of their own are refused (`storageFor`).
 */
export const postgresStorage: StorageBackend = {
  async open(options): Promise<GatewayStores> {
    const stores = await openPostgresStores(options.location, {
      keyDir: options.keyDir,
      secrets: options.secrets,
      log: options.log,
    });
    const decisions = openEventBus<{ callId: string }>(stores.sql, DECISIONS_CHANNEL);
    const signals = openEventBus<LiveSignal>(stores.sql, CONSOLE_SIGNALS_CHANNEL);
    // #31: the run journal on the database and each run a job (runs/jobs/).
    const runs = await openSharedRuns(options.location, stores.sql, options.log ?? (() => {})).catch(async (e) => {
      await stores.close();
      throw e;
    });
    return {
      receipts: stores.receipts,
      approvals: {
        store: announcingDecisions(stores.approvals.store, decisions, options.log),
        rules: stores.approvals.rules,
        shared: true,
      },
      approvalDecisions: {
        async subscribe(onDecided) {
          const subscription = await decisions.subscribe((event) => onDecided(event.callId));
          return () => subscription.close();
        },
      },
      consoleSignals: {
        publish: (signal) => signals.publish(signal),
        async subscribe(onSignal) {
          const subscription = await signals.subscribe((signal) => onSignal(signal));
          return () => subscription.close();
        },
      },
      sessions: stores.sessions,
      runCode: stores.runCode,
      schedules: stores.schedules,
      runs,
      openSurfaceStore(backends) {
        if (!backends.postgres)
          throw new Error(
            "this surface keeps its own tables in SQLite only, and storage.url puts the gateway's stores on PostgreSQL: remove the surface's config section, or remove storage.url",
          );
        return backends.postgres(stores.sql);
      },
      close: once(async () => {
        try {
          await runs.close();
        } finally {
          await stores.close();
        }
      }),
    };
  },
  async probeWritable(location) {
    await withConnection(location, async (sql) => {
      // A temporary table: nothing is left behind, and a role without CREATE on its schema shows here.
      await sql.begin(async (tx) => {
        await tx`CREATE TEMP TABLE openassistant_probe (n INTEGER) ON COMMIT DROP`;
        await tx`INSERT INTO openassistant_probe VALUES (1)`;
      });
    });
  },
  // Created: a gateway (or `db migrate`) migrated it; an empty database is not written by a reader.
  exists: (location) => withConnection(location, async (sql) => (await schemaVersions(sql)).size > 0),
  hasReceipts: (location) => withConnection(location, async (sql) => (await schemaVersions(sql)).has("receipts")),
  health: postgresHealth,
  describe: (location) => `the PostgreSQL database ${describeUrl(location)} (storage.url)`,
  async openReceipts(location, keyDir): Promise<ReceiptsOnly> {
    const sql = connectPostgres(location, { max: 2 });
    try {
      await checkPostgres(sql, location);
      const receipts = await openPostgresReceipts(sql, keyDir ? { keyDir } : {});
      return {
        receipts,
        close: once(async () => {
          try {
            await receipts.close();
          } finally {
            await sql.close();
          }
        }),
      };
    } catch (e) {
      await sql.close();
      throw e;
    }
  },
};

/** Where a gateway tells the others that it recorded an approval decision (LISTEN/NOTIFY). */
const DECISIONS_CHANNEL = "openassistant_approval_decided";

/** Where a gateway tells the others' consoles which kinds of event it produced (`events/other-gateways.ts`). */
export const CONSOLE_SIGNALS_CHANNEL = "openassistant_console_events";

/**
 * The approval store, announcing each decision it recorded first (compare-and-set won) to the
 * other gateways once it is committed. An announcement that fails is logged: the decision is
 * stored, and the waiting gateway finds it when its wait ends (the broker keeps a stored decision).
 */
function announcingDecisions(
  store: ApprovalStore,
  bus: EventBus<{ callId: string }>,
  log: ((line: string) => void) | undefined,
): ApprovalStore {
  const announcing: ApprovalStore = Object.create(store);
  announcing.decide = async (callId, decision, at) => {
    const changed = await store.decide(callId, decision, at);
    if (changed)
      await bus
        .publish({ callId })
        .catch((e: unknown) =>
          log?.(`could not tell the other gateways about the decision on ${callId}: ${(e as Error).message}`),
        );
    return changed;
  };
  return announcing;
}

async function withConnection<T>(url: string, work: (sql: ReturnType<typeof connectPostgres>) => Promise<T>) {
  const sql = connectPostgres(url, { max: 1 });
  try {
    await checkPostgres(sql, url);
    return await work(sql);
  } finally {
    await sql.close();
  }
}

function once(close: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= close());
}

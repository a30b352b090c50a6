import { checkPostgres, connectPostgres, describeUrl, schemaVersions } from "@openassistant/core/db";
import { openPostgresReceipts } from "@openassistant/core/receipts";
import { openPostgresStores } from "../../postgres/open-stores.ts";
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
    return {
      receipts: stores.receipts,
      approvals: { store: stores.approvals.store, rules: stores.approvals.rules },
      sessions: stores.sessions,
      runCode: stores.runCode,
      openSurfaceStore(backends) {
        if (!backends.postgres)
          throw new Error(
            "this surface keeps its own tables in SQLite only, and storage.url puts the gateway's stores on PostgreSQL: remove the surface's config section, or remove storage.url",
          );
        return backends.postgres(stores.sql);
      },
      close: once(() => stores.close()),
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
  exists: (location) => withConnection(location, async () => true),
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

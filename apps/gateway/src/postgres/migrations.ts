import { ABILITY_MIGRATIONS } from "@openassistant/core/abilities";
import { APPROVAL_MIGRATIONS } from "@openassistant/core/approvals";
import { migrate, type Postgres, schemaVersions } from "@openassistant/core/db";
import { RECEIPT_MIGRATIONS, RUN_JOURNAL_MIGRATIONS } from "@openassistant/core/receipts";
import { installRunJobs } from "../runs/jobs/run-jobs.ts";
import { PGBOSS_SCHEMA, pgBossSchema } from "../runs/jobs/pgboss-schema.ts";
import { CONSOLE_MIGRATIONS } from "../console/postgres/run-code.ts";
import { SCHEDULE_MIGRATIONS } from "../schedules/postgres/store.ts";
import { DISCORD_MIGRATIONS } from "../surfaces/discord/postgres/surface-store.ts";
import { SESSION_MIGRATIONS } from "../sessions/postgres/schema.ts";

/** Every store's migrations on PostgreSQL, by the name `schema_versions` records. */
export const POSTGRES_MIGRATIONS: ReadonlyArray<{ readonly store: string; readonly migrations: readonly string[] }> = [
  { store: "receipts", migrations: RECEIPT_MIGRATIONS },
  { store: "approvals", migrations: APPROVAL_MIGRATIONS },
  { store: "sessions", migrations: SESSION_MIGRATIONS },
  { store: "console", migrations: CONSOLE_MIGRATIONS },
  { store: "schedules", migrations: SCHEDULE_MIGRATIONS },
  // #31: the run journal (runs/jobs/postgres-runs.ts); pg-boss keeps its jobs in its own schema `pgboss`.
  { store: "runs", migrations: RUN_JOURNAL_MIGRATIONS },
  // Migrated by the Discord surface when it first starts, or by `db migrate`.
  { store: "discord", migrations: DISCORD_MIGRATIONS },
  // #32: migrated by the gateway's abilities when first used, or by `db migrate`.
  { store: "abilities", migrations: ABILITY_MIGRATIONS },
];

export interface StoreSchema {
  readonly store: string;
  /** The version the database records (0: never migrated). */
  readonly database: number;
  /** The newest version this openassistant knows. */
  readonly known: number;
  readonly state: "current" | "behind" | "ahead";
}

/** Each store's schema in the database against what this code knows, then pg-boss's (the runs' jobs). */
export async function schemaStatus(sql: Postgres): Promise<StoreSchema[]> {
  const recorded = await schemaVersions(sql);
  const stores = POSTGRES_MIGRATIONS.map(({ store, migrations }) =>
    storeSchema(store, recorded.get(store) ?? 0, migrations.length),
  );
  const jobs = await pgBossSchema(sql);
  return [...stores, storeSchema(PGBOSS_SCHEMA, jobs.database, jobs.known)];
}

function storeSchema(store: string, database: number, known: number): StoreSchema {
  return { store, database, known, state: database === known ? "current" : database < known ? "behind" : "ahead" };
}

/**
 * Applies every store's missing migrations (refusing a store newer than this code), then installs
 * or migrates pg-boss's schema and creates the runs' queues: all the DDL a gateway needs, so its
 * own role may have none (docs/scaling.md, "Three replicas, end to end").
 */
export async function migrateAll(sql: Postgres): Promise<Array<{ store: string; from: number; to: number }>> {
  const out = [];
  for (const { store, migrations } of POSTGRES_MIGRATIONS) out.push(await migrate(sql, store, migrations));
  out.push({ store: PGBOSS_SCHEMA, ...(await installRunJobs(sql)) });
  return out;
}

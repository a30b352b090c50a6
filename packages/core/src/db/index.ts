/** Storage basics: the gateway's SQLite database and time-ordered ids. */
export { openDatabase } from "./open.ts";
export { newId } from "./new-id.ts";
export { hasTable, probeWritable } from "./probe.ts";
/** PostgreSQL (storage.url): the connection Postgres stores are opened on, and their versioned migrations. */
export { checkPostgres, connectPostgres, describeUrl, type Postgres } from "./postgres/connect.ts";
export { migrate, schemaVersions } from "./postgres/migrate.ts";
export { type EventBus, openEventBus } from "./postgres/events.ts";
export { takeLease } from "./postgres/lease.ts";
/** The database handle stores are opened on; only store folders (`…/sqlite/`) use it. */
export type { Database } from "bun:sqlite";

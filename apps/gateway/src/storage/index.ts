import type { GatewaySettings } from "../settings.ts";
import type { StorageBackend } from "./backend.ts";
import { postgresStorage } from "./postgres/backend.ts";
import { sqliteStorage } from "./sqlite/backend.ts";

export type { GatewayStores, ReceiptsOnly, StorageBackend, StorageCheck, StorageOptions } from "./backend.ts";

/**
 * Every storage backend, by name: the one place a backend is chosen. A new backend is a folder
 * beside `sqlite/` implementing `StorageBackend` plus one line here; the gateway
 * (services/storage-layer.ts) and the CLI (`receipts`, `doctor`) open stores only through it.
 */
export const STORAGE_BACKENDS = new Map<string, StorageBackend>([
  ["sqlite", sqliteStorage],
  ["postgres", postgresStorage],
]);

export const DEFAULT_STORAGE_BACKEND = "sqlite";

export function storageBackend(name: string = DEFAULT_STORAGE_BACKEND): StorageBackend {
  const backend = STORAGE_BACKENDS.get(name);
  if (!backend)
    throw new Error(
      `Unknown storage backend "${name}": the registered ones are ${[...STORAGE_BACKENDS.keys()].join(", ")} (apps/gateway/src/storage/index.ts).`,
    );
  return backend;
}

/** The backend the settings ask for and where its database is: `storage.url` → PostgreSQL, else the SQLite file. */
export interface ChosenStorage {
  readonly name: string;
  readonly backend: StorageBackend;
  readonly location: string;
  /** `location` as messages show it (never a password). */
  readonly described: string;
}

/** The storage `settings` ask for; never SQLite when `storage.url` is set. */
export function storageFor(settings: Pick<GatewaySettings, "databasePath" | "storageUrl">): ChosenStorage {
  const name = settings.storageUrl ? "postgres" : DEFAULT_STORAGE_BACKEND;
  const location = settings.storageUrl ?? settings.databasePath;
  const backend = storageBackend(name);
  return { name, backend, location, described: backend.describe(location) };
}

import type { StorageBackend } from "./backend.ts";
import { sqliteStorage } from "./sqlite/backend.ts";

export type { GatewayStores, ReceiptsOnly, StorageBackend, StorageOptions } from "./backend.ts";

/**
 * Every storage backend, by name: the one place a backend is chosen. A new backend (e.g.
 * PostgreSQL) is a folder beside `sqlite/` implementing `StorageBackend` plus one line here; the
 * gateway (services/storage-layer.ts) and the CLI (`receipts`, `doctor`) open stores only through it.
 */
export const STORAGE_BACKENDS = new Map<string, StorageBackend>([["sqlite", sqliteStorage]]);

export const DEFAULT_STORAGE_BACKEND = "sqlite";

export function storageBackend(name: string = DEFAULT_STORAGE_BACKEND): StorageBackend {
  const backend = STORAGE_BACKENDS.get(name);
  if (!backend)
    throw new Error(
      `Unknown storage backend "${name}": the registered ones are ${[...STORAGE_BACKENDS.keys()].join(", ")} (apps/gateway/src/storage/index.ts).`,
    );
  return backend;
}

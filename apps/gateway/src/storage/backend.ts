import type { ApprovalRuleStore, ApprovalStore } from "@openassistant/core/approvals";
import type { Database } from "@openassistant/core/db";
import type { ReceiptLog, ReceiptReader, SecretRegistry } from "@openassistant/core/receipts";
import type { SessionStore } from "../sessions/store.ts";

/** Where the gateway keeps what it records. */
export interface StorageOptions {
  /** The database's location (`settings.databasePath` for SQLite). */
  readonly location: string;
  /** The config dir: the receipt chain's HMAC key and head live there, outside the database. */
  readonly keyDir: string;
  /** Where keys read from `keyDir` are registered for redaction. */
  readonly secrets?: SecretRegistry;
}

/** Every store the gateway opens, on one backend. `close()` closes the stores, then the database. */
export interface GatewayStores {
  /** The SQLite handle surfaces and the console keep their own tables in (`surfaces/discord/sqlite/`, `console/sqlite/`). */
  readonly db: Database;
  readonly receipts: ReceiptLog & ReceiptReader;
  readonly approvals: { readonly store: ApprovalStore; readonly rules: ApprovalRuleStore };
  readonly sessions: SessionStore;
  close(): Promise<void>;
}

/** The receipts alone, as the CLI reads and checks them (no journal: the gateway may own it). */
export interface ReceiptsOnly {
  readonly receipts: ReceiptLog & ReceiptReader;
  close(): Promise<void>;
}

/**
 * A storage backend: one folder beside this file (`sqlite/`), registered in `STORAGE_BACKENDS` (index.ts).
 * It passes the contract suites (docs/CONTRIBUTING.md, "Storage").
 */
export interface StorageBackend {
  /** Opens every store for a running gateway (receipts journaled, keyed with the key in `keyDir`). */
  open(options: StorageOptions): Promise<GatewayStores>;
  /** Throws, saying why, when the backend cannot write at `location` (doctor's "database" check). */
  probeWritable(location: string): void;
  /** Whether the database at `location` was created (by a first gateway start). */
  exists(location: string): boolean;
  /** Whether a receipt was ever recorded at `location` (an existing database). */
  hasReceipts(location: string): boolean;
  /** The receipts for reading and verifying; keyed when `keyDir` is given. */
  openReceipts(location: string, keyDir?: string): Promise<ReceiptsOnly>;
}

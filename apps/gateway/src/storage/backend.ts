import type { ApprovalRuleStore, ApprovalStore } from "@openassistant/core/approvals";
import type { Database } from "@openassistant/core/db";
import type { ReceiptLog, ReceiptReader, SecretRegistry } from "@openassistant/core/receipts";
import type { SharedRuns } from "../runs/jobs/postgres-runs.ts";
import type { RunCodeStore } from "../console/run-code.ts";
import type { LiveSignalChannel } from "../events/other-gateways.ts";
import type { ScheduleStore } from "../schedules/store.ts";
import type { SessionStore } from "../sessions/store.ts";
import type { SurfaceStoreBackends } from "../surfaces/port.ts";

/** Where the gateway keeps what it records. */
export interface StorageOptions {
  /** The database's location (`settings.databasePath` for SQLite, `storage.url` for PostgreSQL). */
  readonly location: string;
  /** The config dir: the receipt chain's HMAC key and head live there, outside the database. */
  readonly keyDir: string;
  /** Where keys read from `keyDir` are registered for redaction. */
  readonly secrets?: SecretRegistry;
  /** Where a store reports a write it could not make in the background (the console's run code). */
  readonly log?: (line: string) => void;
}

/** Every store the gateway opens, on one backend. `close()` closes the stores, then the database. */
export interface GatewayStores {
  /** The SQLite file's handle (tests and tools read it); absent on PostgreSQL. */
  readonly db?: Database;
  /**
   * A surface's own store on this backend (`surfaces/<name>/sqlite/`, `…/postgres/`); throws, naming
   * the backend, when the surface has no store for it.
   */
  openSurfaceStore<S>(backends: SurfaceStoreBackends<S>): S;
  /**
   * Decisions recorded by another gateway on the same database (PostgreSQL): `onDecided` gets the
   * call id, so a call waiting here goes on (`ApprovalBroker.settleFromStore`). Absent on SQLite.
   */
  readonly approvalDecisions?: {
    subscribe(onDecided: (callId: string) => void): Promise<() => Promise<void>>;
  };
  /**
   * The console's live signals between the gateways of one database (PostgreSQL's LISTEN/NOTIFY,
   * `events/other-gateways.ts`): which kinds of event happened elsewhere. Absent on SQLite.
   */
  readonly consoleSignals?: LiveSignalChannel;
  /** The code the model wrote for each run, for the console's run page. */
  readonly runCode: RunCodeStore;
  readonly receipts: ReceiptLog & ReceiptReader;
  /** `shared`: other gateways may use the same store (the broker's `shared` option). */
  readonly approvals: { readonly store: ApprovalStore; readonly rules: ApprovalRuleStore; readonly shared?: boolean };
  readonly sessions: SessionStore;
  /** #33: schedules and their occurrences (one row per occurrence, shared by every gateway of the database). */
  readonly schedules: ScheduleStore;
  /**
   * #31: the run journal on the shared database and each run as a job (PostgreSQL), so another
   * gateway resumes the runs of one that died. Absent on SQLite: the journal is a file per run.
   */
  readonly runs?: Pick<SharedRuns, "journal" | "jobs">;
  close(): Promise<void>;
}

/** The receipts alone, as the CLI reads and checks them (no journal: the gateway may own it). */
export interface ReceiptsOnly {
  readonly receipts: ReceiptLog & ReceiptReader;
  close(): Promise<void>;
}

/** One line of `doctor` about the storage. */
export interface StorageCheck {
  readonly name: string;
  readonly level: "ok" | "warn" | "fail";
  readonly detail: string;
}

/**
 * A storage backend: one folder beside this file (`sqlite/`, `postgres/`), registered in `STORAGE_BACKENDS` (index.ts).
 * It passes the contract suites (docs/CONTRIBUTING.md, "Storage").
 */
export interface StorageBackend {
  /** Opens every store for a running gateway (receipts journaled, keyed with the key in `keyDir`). */
  open(options: StorageOptions): Promise<GatewayStores>;
  /** Throws, saying why, when the backend cannot write at `location` (doctor's "database" check). */
  probeWritable(location: string): void | Promise<void>;
  /** Whether the database at `location` was created (by a first gateway start). */
  exists(location: string): boolean | Promise<boolean>;
  /** Whether a receipt was ever recorded at `location` (an existing database). */
  hasReceipts(location: string): boolean | Promise<boolean>;
  /** `location` as messages show it (a URL without its password). */
  describe(location: string): string;
  /** Checks of its own for `doctor` (a server's connection, schema, triggers); none for a file. */
  health?(location: string): Promise<StorageCheck[]>;
  /** The receipts for reading and verifying; keyed when `keyDir` is given. */
  openReceipts(location: string, keyDir?: string): Promise<ReceiptsOnly>;
}

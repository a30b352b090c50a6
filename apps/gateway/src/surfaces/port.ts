import type { ModelCatalog } from "../model/catalog.ts";
import type { SecretSink } from "@openassistant/core/receipts";
import type { ApprovalBroker } from "@openassistant/core/approvals";
import type { Diagnostic } from "@openassistant/core/config";
import type { Database, Postgres } from "@openassistant/core/db";
import type { ActivitySummary, ReceiptReader } from "@openassistant/core/receipts";
import type { EventBus } from "../events/bus.ts";
import type { GatewayEvent } from "../events/types.ts";
import type { SessionStore } from "../sessions/store.ts";

/**
 * How a surface's own store is made on each storage backend the gateway can run on. A new backend
 * adds its key here and a factory in each surface's backend folder (`surfaces/<name>/<backend>/`).
 */
export interface SurfaceStoreBackends<S> {
  readonly sqlite: (db: Database) => S;
  /** On the shared PostgreSQL database (`storage.url`); a surface without it cannot start there. */
  readonly postgres?: (sql: Postgres) => S;
}

/** One loaded tool as `/tools` shows it. */
export interface ToolListing {
  readonly path: string;
  /** The author's mode ("auto" | "required"), or the effective policy when an operator overrode it. */
  readonly approval: string;
  readonly description?: string;
}

/** One change to a tool file the assistant wrote, and who approved it (from the call's receipts). */
export interface ToolVersionInfo {
  readonly name: string;
  readonly action: "write" | "remove" | "rollback";
  readonly sha256?: string;
  readonly at: string;
  readonly approvedBy?: string;
  readonly reason?: string;
}

export interface ToolReport {
  readonly tools: readonly ToolListing[];
  /** Load problems, structured; the surface formats them. */
  readonly diagnostics: readonly Diagnostic[];
  /** The latest changes to assistant-written tool files, newest first. */
  readonly versions?: readonly ToolVersionInfo[];
}

export interface SurfaceTurnInput {
  readonly sessionKey: string;
  readonly surface: string;
  readonly userId?: string;
  readonly text: string;
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: GatewayEvent) => void;
}

export interface SurfaceTurnOutcome {
  readonly text: string;
  readonly summary?: ActivitySummary;
  /** One line per relevant call, as every surface shows it under the answer. */
  readonly summaryText: string;
  readonly unverified: boolean;
  readonly runIds: readonly string[];
}

/**
 * Everything a surface (Discord, terminal) needs from the gateway, and nothing more. `surfacePort`
 * adapts the real gateway; tests may build one from real core parts.
 */
export interface SurfacePort {
  handleMessage(input: SurfaceTurnInput): Promise<SurfaceTurnOutcome>;
  readonly broker: Pick<ApprovalBroker, "decide" | "get" | "pending" | "subscribe" | "closeOrphans" | "rules">;
  readonly receipts: Pick<ReceiptReader, "query" | "byRun">;
  /**
   * Opens the surface's own store on the gateway's storage: the gateway picks the backend it runs
   * on and calls that factory (the surface's `sqlite/` folder); the surface never holds the database.
   */
  openStore<S>(backends: SurfaceStoreBackends<S>): S;
  listTools(): Promise<ToolReport>;
  /** Scrubs secrets from a text (the gateway's redactor); the surface's log lines go through it. */
  readonly redact: (text: string) => string;
  /** Where the surface registers its own credential (the bot token), so `redact` and every reply know it. */
  readonly secrets?: SecretSink;
  /** With the console on: a signed, expiring, read-only link to a call's receipts (activity summaries link each call). */
  readonly receiptLink?: (runId: string, callId: string) => string;
  /** Reloads tools from disk and plugins; resolves with what is loaded now. */
  reload(): Promise<ToolReport>;
  /** Every gateway event (already redacted), for live status. */
  readonly events: Pick<EventBus, "subscribe">;
  /** Per-session settings (`/model`). */
  readonly sessions: Pick<SessionStore, "getOrCreate" | "setSettings">;
  /** The configured default model, shown by `/model`. */
  readonly defaultModel: string;
  /** #35: what the configured model providers offer; `/model` lists it and refuses a name none offers. */
  readonly models?: ModelCatalog;
  /** #32: the defined abilities' names (Discord's `/ability run` autocomplete); absent when abilities are off. */
  readonly abilityNames?: () => Promise<string[]>;
}

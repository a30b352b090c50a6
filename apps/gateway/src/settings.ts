import { join } from "node:path";
import type { PolicyRule } from "@openassistant/core/policy";
import type { SandboxLimits } from "@openassistant/core/sandbox";
import { DEFAULT_TURN_SETTINGS, type TurnSettings } from "./agent/settings.ts";
import type { ModelTarget } from "./model/provider.ts";

/** Everything the gateway process needs, resolved from config + env + defaults. */
export interface GatewaySettings {
  readonly projectRoot: string;
  /** `<project>/.openassistant/data`: database, HTTP token, plugin data. */
  readonly dataDir: string;
  readonly databasePath: string;
  /** Config `storage.url`: every store on this PostgreSQL database instead of the SQLite file (docs/scaling.md). */
  readonly storageUrl?: string;
  readonly turn: TurnSettings;
  readonly anthropic: {
    readonly baseURL?: string;
    readonly profileOrder?: readonly string[];
    /** Config `auth.anthropic.pinned`: always start with this profile. */
    readonly pinned?: string;
    readonly timeoutMs?: number;
  };
  /**
   * #35: the provider of `turn.model` and the models that take a turn when it is down or rate
   * limited (config `model.provider`, `model.baseUrl`, `model.apiKey`, `model.toolCalls`,
   * `model.fallbacks`); absent: Claude alone, as before.
   */
  readonly models?: {
    readonly primary: Omit<ModelTarget, "name">;
    readonly fallbacks: readonly ModelTarget[];
  };
  readonly policy: readonly PolicyRule[];
  readonly approvalTimeoutMs: number;
  readonly toolTimeoutMs?: number;
  readonly sandboxLimits?: Partial<SandboxLimits>;
  /** The config sections of the registered surfaces that are configured to run, by surface id (surfaces/registry.ts). */
  readonly surfaces?: Readonly<Record<string, unknown>>;
  /** HTTP API; absent = disabled. port 0 = random port. */
  readonly http?: {
    readonly port: number;
    readonly token?: string;
    /** Listen address; default 127.0.0.1. */
    readonly host?: string;
    /** Base of console links when behind a reverse proxy or tunnel. */
    readonly publicUrl?: string;
    /** Who may use the console's approvals (default: what the configured surfaces say, surfaces/registry.ts). */
    readonly approvers?: readonly string[];
  };
  /** #34: the gateway's tools served to MCP clients (docs/mcp-server.md); absent = off. */
  readonly mcpServer?: McpServerSettings;
  /** Values to scrub from receipts, logs and prompts besides credentials (config secrets). */
  readonly secrets: readonly string[];
  /** #34: client sessions (docs/client-tools.md): how long a dropped client may take to come back. */
  readonly clients?: { readonly graceMs?: number };
  /** Tool path patterns that always need a person's approval (`workspace.*` writes unless allowAutoWrite). */
  readonly alwaysAsk?: readonly string[];
}

/** Config `mcpServer` when enabled. */
export interface McpServerSettings {
  /** 0 = a free port chosen at start. */
  readonly port: number;
  readonly host: string;
  /** Tool path patterns MCP clients may see and call. */
  readonly tools: readonly string[];
  readonly maxRequestBytes: number;
  readonly maxSessions: number;
}

export function defaultSettings(projectRoot: string): GatewaySettings {
  const dataDir = join(projectRoot, ".openassistant", "data");
  return {
    projectRoot,
    dataDir,
    databasePath: join(dataDir, "openassistant.sqlite"),
    turn: DEFAULT_TURN_SETTINGS,
    anthropic: {},
    policy: [],
    approvalTimeoutMs: 10 * 60_000,
    secrets: [],
  };
}

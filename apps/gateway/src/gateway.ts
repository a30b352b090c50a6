import type { ToolTree } from "@openassistant/sdk";
import type { ApprovalBroker } from "@openassistant/core/approvals";
import { createTypechecker, GATEWAY_PRACTICE_CHECKS, type Typechecker } from "@openassistant/core/codemode";
import type { Database } from "@openassistant/core/db";
import type { GatewayStores } from "./storage/index.ts";
import type { ReceiptLog, ReceiptReader, SecretRegistry } from "@openassistant/core/receipts";
import { createSandboxPool, type SandboxPool } from "@openassistant/core/sandbox";
import type { ModelStreamer, TurnOutcome } from "./agent/run-turn.ts";
import type { AuthResolver } from "./auth/resolve.ts";
import type { EnvLike } from "./auth/types.ts";
import type { EventBus } from "./events/bus.ts";
import type { GatewayConsole } from "./console/index.ts";
import type { HttpApi } from "./http/server.ts";
import type { SessionStore } from "./sessions/store.ts";
import type { GatewaySettings } from "./settings.ts";
import type { LoadedGatewayConfig } from "./config-adapter.ts";
import type { ToolSnapshot } from "./tools-source.ts";
import type { IncomingMessage } from "./conversations/service.ts";

export { GatewayClosedError, type IncomingMessage } from "./conversations/service.ts";

export interface GatewayOptions {
  readonly cwd: string;
  readonly env?: EnvLike;
  /** Use this tree instead of the workspace/plugin registry (tests, embedding). */
  readonly tools?: ToolTree;
  /** Overrides applied on top of the loaded config. */
  readonly settings?: Partial<GatewaySettings>;
  /** Use this model transport instead of the Anthropic client built from auth profiles. */
  readonly model?: ModelStreamer;
  /** Directory of auth-profiles.json and the receipt key (default $OPENASSISTANT_CONFIG_DIR or ~/.config/openassistant). */
  readonly configDir?: string;
  /** A shared sandbox pool, the caller's to close. Default: one owned (and closed) by the gateway. */
  readonly sandbox?: SandboxPool;
  /** Default: a checker pool owned (and closed) by the gateway. A shared one is the caller's to close. */
  readonly typechecker?: Typechecker;
  /** Child processes started before the config loaded (startGatewayProcesses); the gateway owns them (closes them at shutdown, or when its start fails). */
  readonly processes?: GatewayProcesses;
  /** Reload tools when their files change (start/chat do; default false). */
  readonly watchTools?: boolean;
  /** Config already loaded by the caller (the CLI prints its tool table before starting). */
  readonly loaded?: LoadedGatewayConfig;
  /** #33: the schedules' clock (tests move it and call `schedules.tick()`); default: the wall clock, ticking every second. */
  readonly clock?: { now(): number };
  /** #33: offer `tools.schedules.*` beside a fixed `tools` tree (with a loaded config they are always offered). */
  readonly scheduleTools?: boolean;
  /** Operator-facing log lines (diagnostics, shutdown); default: none. */
  readonly log?: (line: string) => void;
}

export interface Gateway {
  readonly settings: GatewaySettings;
  readonly events: EventBus;
  readonly approvals: ApprovalBroker;
  readonly receipts: ReceiptLog & ReceiptReader;
  readonly sessions: SessionStore;
  /** The SQLite file's handle; absent when `storage.url` puts the stores on PostgreSQL. */
  readonly db?: Database;
  /** A surface's own store on the gateway's storage backend (`SurfacePort.openStore`). */
  readonly openSurfaceStore: GatewayStores["openSurfaceStore"];
  readonly auth: AuthResolver;
  /** Scrubs every known secret (config, credentials, tokens) from a text before it is logged or shown. */
  readonly redact: (text: string) => string;
  /** Every credential the gateway knows (what `redact` removes); surfaces and sources add theirs. */
  readonly secrets: SecretRegistry;
  /** The local HTTP API when `http.port` is configured. */
  readonly http?: GatewayHttp;
  /** The operator console (on with the HTTP API): receipt and login links. */
  readonly console?: Pick<GatewayConsole, "callLink" | "loginLink" | "baseUrl">;
  /** #34: the gateway's tools served to MCP clients, when `mcpServer.enabled` (docs/mcp-server.md). */
  readonly mcpServer?: { readonly url: string };
  tools(): ToolSnapshot;
  reloadTools(): Promise<ToolSnapshot>;
  /** True when some Anthropic credential (profile or env) is configured. */
  hasCredentials(): boolean;
  handleMessage(message: IncomingMessage): Promise<TurnOutcome>;
  /**
   * #30: resumes, by replay, the runs a previous process left pending (a card waiting, a call cut
   * off) and continues their conversations; the start calls it once the surfaces are up. Runs once.
   * #31: on a shared database it starts claiming dead gateways' runs instead, only while
   * `takeOverWhile` holds (the start passes "this gateway holds the Discord connection", which
   * delivers their answers and cards).
   */
  resumeInterrupted(options?: {
    readonly takeOverWhile?: () => boolean;
  }): Promise<import("./runs/resume.ts").ResumeReport[]>;
  /**
   * #32: abilities (docs/abilities.md); absent when their store could not be opened. For other
   * parts of the gateway (schedules): `abilities.start(name, inputs, { sessionId?, requestedBy? })`
   * starts a run by name, its inputs checked; `done` resolves when it ends.
   */
  readonly abilities?: import("@openassistant/core/abilities").AbilityService;
  /** #33: the schedules: their service (create, list, pause, remove) and the scheduler's tick. */
  readonly schedules: import("./schedules/gateway-schedules.ts").GatewaySchedules;
  /** Turns in progress. */
  readonly activeTurns: number;
  /** Resolves once the typechecker's process is warm as well (a first check before that waits for it). */
  readonly warm: Promise<void>;
  shutdown(reason?: string): Promise<void>;
}

export interface GatewayHttp extends HttpApi {
  readonly token: string;
  /** The token was generated now (print it once). */
  readonly tokenCreated: boolean;
  readonly tokenPath?: string;
}

/**
 * The gateway's child processes (the sandbox pool and the typechecker), started before anything
 * else so that their start-up (spawn, QuickJS, TypeScript) runs on other cores while this process
 * imports modules and loads config and tools. Runs get their limits per run, so nothing here needs
 * the config. Hand them to createGateway, which owns them from then on; `close()` them if it is
 * never called.
 */
export interface GatewayProcesses {
  readonly sandbox: SandboxPool;
  readonly typechecker: Typechecker;
  close(): Promise<void>;
}

export function startGatewayProcesses(): GatewayProcesses {
  const sandbox = createSandboxPool({ minIdle: 2 });
  const typechecker = createTypechecker({ practiceChecks: GATEWAY_PRACTICE_CHECKS });
  // Failures surface again (and are logged) when createGateway awaits the same warm-ups.
  sandbox.warmUp({ ready: 1 }).catch(() => {});
  typechecker.warmUp().catch(() => {});
  // The assembly (with `effect`) loads now, in the gaps while config and tools load, not after them.
  void loadAssembly().catch(() => {}); // a failure shows when createGateway awaits it
  return {
    sandbox,
    typechecker,
    close: async () => {
      await Promise.allSettled([sandbox.close(), typechecker.close()]);
    },
  };
}

/**
 * Assembles the process: config, tools, database (receipts + approvals + sessions), runner,
 * typechecker (its process warmed up here, off this thread), model client, the event bus, the
 * conversations and, when configured, the HTTP API and console. Each is a resource of one scope
 * (services/assemble.ts): a start that fails half way (a port in use, a refused key file, a
 * broken database) closes what it had opened, in reverse, and throws its own error; `shutdown`
 * stops the conversations, then closes the same scope.
 */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const { assembleGateway } = await loadAssembly();
  return assembleGateway(options);
}

/** Loaded on first use, not at the top: `effect` stays off the import path (startup-imports.test.ts). */
const loadAssembly = () => import("./services/assemble.ts");

import type { ToolTree } from "@openassistant/sdk";
import { createApprovalBroker, openSqliteApprovals, type ApprovalBroker } from "@openassistant/core/approvals";
import { createCodeModeRunner, type CodeModeRunner } from "@openassistant/core/codemode";
import {
  createTypechecker,
  GATEWAY_PRACTICE_CHECKS,
  openDeclarationCache,
  type Typechecker,
} from "@openassistant/core/codemode";
import { openDatabase, type Database } from "@openassistant/core/db";
import {
  createSecretRegistry,
  openSqliteReceipts,
  redactDeep,
  type SecretRegistry,
} from "@openassistant/core/receipts";
import type { ReceiptLog, ReceiptReader } from "@openassistant/core/receipts";
import { createSandboxPool, defaultSandboxLimits } from "@openassistant/core/sandbox";
import { closeSourceKinds, SOURCE_KINDS } from "@openassistant/core/sources";
import type { SandboxPool } from "@openassistant/core/sandbox";
import { newTurnId, runTurn, type ModelStreamer, type TurnOutcome } from "./agent/run-turn.ts";
import { mergeTurnSettings } from "./agent/settings.ts";
import { createAuthResolver, type AuthResolver } from "./auth/resolve.ts";
import { openAuthStore } from "./auth/store.ts";
import { resolveConfigDir } from "./auth/paths.ts";
import type { EnvLike } from "./auth/types.ts";
import { createEventBus, type EventBus } from "./events/bus.ts";
import type { GatewayEvent } from "./events/types.ts";
import { createModelClient } from "./model/client.ts";
import { loadAnthropicSdk } from "./model/sdk.ts";
import { createConsole, type GatewayConsole } from "./console/index.ts";
import { startHttpApi, type HttpApi } from "./http/server.ts";
import { resolveHttpToken } from "./http/token.ts";
import { createRunCodeStore } from "./console/sqlite/run-code.ts";
import { createSessionStore } from "./sessions/sqlite/store.ts";
import type { SessionStore } from "./sessions/store.ts";
import { defaultSettings, type GatewaySettings } from "./settings.ts";
import { declarationCacheFile, loadGatewaySettings, type LoadedGatewayConfig } from "./config-adapter.ts";
import { staticToolSource, type ToolSnapshot, type ToolSource } from "./tools-source.ts";
import { createKeyedQueue } from "./sessions/keyed-queue.ts";
import {
  gatewayHook,
  observeApprovals,
  observerHooks,
  refuseWithoutCriticalPlugins,
  rolesFrom,
  turnHookText,
  withSystemText,
} from "./hooks/gateway-hooks.ts";

export interface IncomingMessage {
  /** Stable conversation key: `discord:dm:<user>`, `discord:thread:<id>`, `terminal`. */
  readonly sessionKey: string;
  readonly surface: string;
  readonly userId?: string;
  readonly text: string;
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: GatewayEvent) => void;
}

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
  /** Child processes started before the config loaded (startGatewayProcesses); the gateway owns them. */
  readonly processes?: GatewayProcesses;
  /** Reload tools when their files change (start/chat do; default false). */
  readonly watchTools?: boolean;
  /** Config already loaded by the caller (the CLI prints its tool table before starting). */
  readonly loaded?: LoadedGatewayConfig;
  /** Operator-facing log lines (diagnostics, shutdown); default: none. */
  readonly log?: (line: string) => void;
}

export interface Gateway {
  readonly settings: GatewaySettings;
  readonly events: EventBus;
  readonly approvals: ApprovalBroker;
  readonly receipts: ReceiptLog & ReceiptReader;
  readonly sessions: SessionStore;
  readonly db: Database;
  readonly auth: AuthResolver;
  /** Scrubs every known secret (config, credentials, tokens) from a text before it is logged or shown. */
  readonly redact: (text: string) => string;
  /** Every credential the gateway knows (what `redact` removes); surfaces and sources add theirs. */
  readonly secrets: SecretRegistry;
  /** The local HTTP API when `http.port` is configured. */
  readonly http?: GatewayHttp;
  /** The operator console (on with the HTTP API): receipt and login links. */
  readonly console?: Pick<GatewayConsole, "callLink" | "loginLink" | "baseUrl">;
  tools(): ToolSnapshot;
  reloadTools(): Promise<ToolSnapshot>;
  /** True when some Anthropic credential (profile or env) is configured. */
  hasCredentials(): boolean;
  handleMessage(message: IncomingMessage): Promise<TurnOutcome>;
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

export class GatewayClosedError extends Error {
  override name = "GatewayClosedError";
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
  return {
    sandbox,
    typechecker,
    close: async () => {
      await Promise.allSettled([sandbox.close(), typechecker.close()]);
    },
  };
}

/** How long shutdown waits for cancelled turns to record their outcome before closing the DB. */
const SHUTDOWN_GRACE_MS = 5_000;

/**
 * Assembles the process: config, tools, database (receipts + approvals + sessions), runner,
 * typechecker (its process warmed up here, off this thread), model client and the event bus.
 */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const undo: Array<() => unknown> = [];
  const life = { closing: false };
  try {
    return await openGateway(options, undo, life);
  } catch (e) {
    // A start that fails half way (a port in use, a refused key file) releases what it opened, in
    // reverse: an open database, the fold worker or a file watcher would keep the process alive.
    // Closing, not failing: the warm-ups it cuts short are not reported.
    life.closing = true;
    for (const release of undo.reverse()) {
      try {
        await release();
      } catch {
        // the start's own error is the one to report
      }
    }
    throw e;
  }
}

/** createGateway's body; `undo` gets a release for each thing opened, for a start that fails. */
async function openGateway(
  options: GatewayOptions,
  undo: Array<() => unknown>,
  life: { closing: boolean },
): Promise<Gateway> {
  const env = options.env ?? {};
  // One registry for every credential: config and plugin secrets and MCP logins are registered while
  // loading; auth profiles on each read, the HTTP token, console and receipt keys when loaded (below).
  // Every log line passes it.
  const secrets = options.loaded?.secrets ?? createSecretRegistry();
  const rawLog = options.log ?? (() => {});
  const log = (line: string) => rawLog(secrets.redact(line));
  const loaded = options.tools
    ? undefined
    : (options.loaded ?? (await loadGatewaySettings(options.cwd, env, { watch: options.watchTools, secrets, log })));
  const base = loaded?.settings ?? defaultSettings(options.cwd);
  const settings: GatewaySettings = { ...base, ...options.settings, turn: { ...base.turn, ...options.settings?.turn } };
  const toolSource: ToolSource = options.tools
    ? staticToolSource(options.tools, openDeclarationCache(declarationCacheFile(settings.dataDir)))
    : loaded!.tools;
  undo.push(
    () => toolSource.close(),
    () => closeSourceKinds(SOURCE_KINDS),
  );
  // #29: a critical plugin that did not load stops the start (gateway-hooks.ts).
  refuseWithoutCriticalPlugins(toolSource);
  // Runs read the hooks like their tools (a snapshot that cannot be built fails the run, never skips a hook).
  const hooks = () => toolSource.current().hooks;
  const rolesOf = rolesFrom(settings);

  let closed = false;
  const events = createEventBus((e) => log(`event listener failed: ${e instanceof Error ? e.message : String(e)}`));
  const db = openDatabase(settings.databasePath);
  undo.push(() => db.close());
  const sessions = createSessionStore(db);

  const configDir = options.configDir ?? resolveConfigDir(env);
  secrets.add("config-field", settings.secrets);
  secrets.add("discord-token", [settings.discord?.token]);
  const authStore = openAuthStore(configDir);
  const auth = createAuthResolver({
    store: authStore,
    profileOrder: settings.anthropic.profileOrder,
    pinnedProfile: settings.anthropic.pinned,
    env,
    secrets,
  });
  // What the store and the environment hold now; every later read registers again.
  credentialSecrets(auth);
  const httpToken = settings.http ? resolveHttpToken(settings.dataDir, settings.http.token, secrets) : undefined;
  const redact = secrets.redact;

  // The receipt chain's HMAC key and head live in the config dir, outside the database.
  const receipts = openSqliteReceipts(db, { keyDir: configDir, journal: true, secrets });
  undo.push(() => receipts.close());
  const approvalStores = openSqliteApprovals(db);
  undo.push(() => approvalStores.close());
  const approvals = createApprovalBroker({ ...approvalStores, defaultTimeoutMs: settings.approvalTimeoutMs });
  undo.push(() => approvals.close());
  await closeOrphanedApprovals(approvals, receipts, log);
  undo.push(observeApprovals(approvals, observerHooks(toolSource)));
  approvals.subscribe((e) =>
    events.emit(
      e.type === "requested"
        ? { type: "approval.requested", request: e.request }
        : { type: "approval.decided", callId: e.request.callId, decision: e.decision },
    ),
  );

  // The pool is spawned while the typechecker warms up (both are off the first turn's path).
  // An early pool prepared its instances for the default memory size; a configured one gets its own pool.
  let early = options.processes?.sandbox;
  const memoryBytes = settings.sandboxLimits?.memoryBytes ?? defaultSandboxLimits.memoryBytes;
  if (early && memoryBytes !== defaultSandboxLimits.memoryBytes) {
    void early.close();
    early = undefined;
  }
  const pool = options.sandbox ?? early ?? createSandboxPool({ minIdle: 2, limits: settings.sandboxLimits });
  if (!options.sandbox) undo.push(() => pool.close());
  // Ready with one child prepared; the second finishes starting in the background.
  const poolWarm = pool
    .warmUp({ ready: 1 })
    .catch(
      (e) =>
        life.closing ||
        log(`sandbox warm-up failed (runs will spawn on demand): ${e instanceof Error ? e.message : String(e)}`),
    );
  const runner: CodeModeRunner = createCodeModeRunner({
    tools: () => toolSource.current().tree,
    requestApproval: approvals.requestApproval,
    receipts,
    policy: settings.policy,
    standing: approvals.rules,
    alwaysAsk: settings.alwaysAsk,
    limits: settings.sandboxLimits,
    sandbox: pool,
    redact,
    approvalTimeoutMs: settings.approvalTimeoutMs,
    toolTimeoutMs: settings.toolTimeoutMs,
    hooks,
    rolesOf,
  });

  // The checker loads TypeScript in its own process, in parallel with the sandbox pool: nothing
  // blocks this thread meanwhile, and "ready" still means the first check is fast.
  const typechecker: Typechecker =
    options.typechecker ??
    options.processes?.typechecker ??
    createTypechecker({ practiceChecks: GATEWAY_PRACTICE_CHECKS });
  if (!options.typechecker) undo.push(() => typechecker.close());
  // The tools' snapshot (declarations, and with discovery a second pass over them) is built here,
  // while the sandbox child starts and this thread would only wait; its declarations warm the
  // checker, so the first turn's check finds a checker built for them (the same after each reload).
  let declarations: string | undefined;
  try {
    declarations = toolSource.current().declarations.text;
  } catch {
    // The first reader gets the same error, as before.
  }
  // A warm-up cut short by shutdown is not a failure worth reporting.
  const checkerWarm = typechecker
    .warmUp(declarations)
    .catch(
      (e) =>
        life.closing ||
        log(
          `typecheck warm-up failed (checks fail closed until a checker starts): ${e instanceof Error ? e.message : String(e)}`,
        ),
    );
  const unsubscribeChecker = toolSource.subscribe((snapshot) => {
    typechecker.warmUp(snapshot.declarations.text).catch(() => {}); // a failure shows in the next check
  });
  undo.push(unsubscribeChecker);
  // Ready once the pool is warm. The checker keeps warming in its own process: a check that
  // comes first waits for it (nothing runs unchecked), and a real first turn spends longer than
  // that waiting for the model.
  await poolWarm;

  const defaultModel: ModelStreamer =
    options.model ??
    createModelClient({
      auth,
      model: settings.turn.model,
      maxTokens: settings.turn.maxTokens,
      baseURL: settings.anthropic.baseURL,
      timeoutMs: settings.anthropic.timeoutMs,
    });
  const pinnedModels = new Map<string, ModelStreamer>();
  const modelFor = (profile: string | undefined): ModelStreamer => {
    if (!profile || options.model) return defaultModel;
    let m = pinnedModels.get(profile);
    if (!m) {
      const pinned = createAuthResolver({
        store: authStore,
        profileOrder: settings.anthropic.profileOrder,
        env,
        pinnedProfile: profile,
      });
      m = createModelClient({
        auth: pinned,
        model: settings.turn.model,
        maxTokens: settings.turn.maxTokens,
        baseURL: settings.anthropic.baseURL,
      });
      pinnedModels.set(profile, m);
    }
    return m;
  };

  // Model-side facts are recorded next to the receipts (turn_events): rotations, model errors, compactions.
  const recordTurnEvent = (turnId: string | undefined, type: string, data: unknown) =>
    void sessions
      .recordTurnEvent(turnId, type, data)
      .catch((err) => log(`recording ${type}: ${err instanceof Error ? err.message : String(err)}`));
  events.subscribe((e) => {
    if (closed) return;
    if (e.type === "profile.rotated")
      recordTurnEvent(e.turnId, e.type, {
        from: e.from,
        to: e.to,
        reason: e.reason,
        message: e.message ? redact(e.message) : undefined,
      });
    else if (e.type === "error") recordTurnEvent(e.turnId, e.type, { code: e.code, message: redact(e.message) });
    else if (e.type === "history.compacted")
      recordTurnEvent(e.turnId, e.type, { omitted: e.omitted, reason: e.reason });
  });

  let http: GatewayHttp | undefined;
  const consoleUi: GatewayConsole | undefined = settings.http
    ? createConsole({
        settings,
        receipts,
        runCode: createRunCodeStore(db),
        approvals,
        events,
        tools: () => toolSource.current(),
        redact,
        secrets,
        localUrl: () => http?.url ?? "",
      })
    : undefined;
  undo.push(() => consoleUi?.close());
  http =
    settings.http && httpToken
      ? {
          ...startHttpApi({
            port: settings.http.port,
            hostname: settings.http.host,
            console: consoleUi,
            token: httpToken.token,
            receipts,
            events,
            health: () => ({
              tools: toolSource.current().count,
              activeTurns: inflight.size,
              shuttingDown: life.closing,
            }),
          }),
          token: httpToken.token,
          tokenCreated: httpToken.created,
          tokenPath: httpToken.path,
        }
      : undefined;

  const inflight = new Map<string, { controller: AbortController; done: Promise<unknown> }>();
  const sessionQueue = createKeyedQueue();

  async function handleMessage(message: IncomingMessage): Promise<TurnOutcome> {
    if (life.closing) throw new GatewayClosedError("The gateway is shutting down; try again when it is back.");
    const session = await sessions.getOrCreate(message.sessionKey, message.surface);
    const turnId = newTurnId();
    const controller = new AbortController();
    const abortFromCaller = () => controller.abort(message.signal?.reason ?? "cancelled by the surface");
    if (message.signal?.aborted) abortFromCaller();
    message.signal?.addEventListener("abort", abortFromCaller, { once: true });
    // One turn at a time per session, so history stays ordered.
    const work = sessionQueue.run(session.id, async () => {
      if (life.closing) throw new GatewayClosedError("The gateway is shutting down; try again when it is back.");
      const onEvent = (e: GatewayEvent) => {
        const safe = redactDeep(e, redact);
        events.emit(safe);
        message.onEvent?.(safe);
      };
      const fresh = (await sessions.get(session.id)) ?? session;
      const turnSettings = mergeTurnSettings(settings.turn, fresh.settings as Record<string, unknown>);
      await sessions.startTurn({
        id: turnId,
        sessionId: session.id,
        userId: message.userId,
        request: redact(message.text),
        model: turnSettings.model,
      });
      onEvent({ type: "turn.started", turnId, sessionId: session.id, surface: message.surface, at: Date.now() });
      // Refused turns are left out (the docs' reset after a refusal); run ids let a compaction keep
      // what the dropped messages' runs did, from their receipts.
      const history = (await sessions.modelHistory(session.id)).map((m) => ({
        role: m.role,
        content: m.content,
        runIds: m.runIds,
      }));
      const leftOutRuns = (await sessions.turns(session.id))
        .filter((t) => t.stopReason === "refused")
        .flatMap((t) => t.runIds);
      const raw = await runTurn(
        { id: session.id, history, leftOutRuns, requestedBy: message.userId },
        message.text,
        {
          model: modelFor(fresh.settings.profile),
          runner,
          receipts,
          typechecker,
          tools: () => {
            const snapshot = toolSource.current();
            return {
              tree: snapshot.tree,
              declarations: snapshot.declarations.text,
              ...(snapshot.declarationsFor ? { declarationsFor: snapshot.declarationsFor } : {}),
            };
          },
          // #29: chat.message context and prompt.system text (gateway-hooks.ts).
          settings: withSystemText(
            turnSettings,
            await turnHookText(hooks(), { text: message.text, userId: message.userId, sessionId: session.id }, rolesOf),
          ),
        },
        { turnId, signal: controller.signal, onEvent },
      );
      // What is stored and shown is scrubbed too: a user may paste a secret, and the model may repeat it.
      const outcome = redactDeep(raw, redact);
      await sessions.appendMessages(session.id, turnId, outcome.messages);
      await sessions.finishTurn(turnId, {
        stopReason: outcome.stopReason,
        unverified: outcome.unverified,
        runIds: outcome.runIds,
        usage: outcome.usage,
        answer: outcome.text,
        ...(outcome.answeredBy ? { model: outcome.answeredBy } : {}),
      });
      onEvent({
        type: "turn.finished",
        turnId,
        sessionId: session.id,
        unverified: outcome.unverified,
        runIds: outcome.runIds,
        stopReason: outcome.stopReason,
      });
      return outcome;
    });
    const tracked = work.finally(() => {
      inflight.delete(turnId);
      message.signal?.removeEventListener("abort", abortFromCaller);
    });
    inflight.set(turnId, { controller, done: tracked });
    return tracked;
  }

  async function shutdown(reason = "gateway shutting down"): Promise<void> {
    if (life.closing) return;
    life.closing = true;
    await gatewayHook(observerHooks(toolSource)(), "gateway.stop");
    if (inflight.size) log(`shutting down: ${inflight.size} turn(s) in progress`);
    // Cancelling a turn's signal denies its pending approvals (by "system", with this reason)
    // and fails calls that had not started; the turn then records its outcome.
    for (const { controller } of inflight.values()) controller.abort(reason);
    const pending = [...inflight.values()].map((t) => t.done.catch(() => {}));
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.all(pending), new Promise((r) => (graceTimer = setTimeout(r, SHUTDOWN_GRACE_MS)))]);
    clearTimeout(graceTimer);
    consoleUi?.close();
    await http?.close();
    await approvals.close();
    unsubscribeChecker();
    toolSource.close();
    await runner.close({ reason });
    // Tool source kinds: MCP servers' HTTP sessions end, stdio server processes are stopped.
    await closeSourceKinds(SOURCE_KINDS);
    if (!options.sandbox) await pool.close();
    if (!options.typechecker) await typechecker.close();
    closed = true;
    await receipts.close();
    await approvalStores.close();
    db.close();
  }

  await gatewayHook(observerHooks(toolSource)(), "gateway.start");
  // The model SDK loads after ready (off the path to it), so the first turn normally finds it loaded.
  if (!options.model) setTimeout(() => void loadAnthropicSdk().catch(() => {}), 0);

  return {
    settings,
    events,
    approvals,
    receipts,
    sessions,
    db,
    auth,
    redact,
    secrets,
    http,
    ...(consoleUi ? { console: consoleUi } : {}),
    tools: () => toolSource.current(),
    reloadTools: () => toolSource.reload(),
    hasCredentials: () => Boolean(options.model) || credentialSecrets(auth).length > 0,
    handleMessage,
    get activeTurns() {
      return inflight.size;
    },
    warm: checkerWarm.then(() => undefined),
    shutdown,
  };
}

/** Events leave the process (SSE, surfaces): scrub the free-text fields that could carry a secret. */
function credentialSecrets(auth: AuthResolver): string[] {
  try {
    return auth.candidates().map((c) => c.secret);
  } catch {
    return [];
  }
}

/**
 * Approvals left pending by a previous process can never be answered (nobody awaits them):
 * deny them and append a `denied` receipt so the audit trail says how the call ended.
 */
async function closeOrphanedApprovals(
  approvals: ApprovalBroker,
  receipts: ReceiptLog & ReceiptReader,
  log: (line: string) => void,
): Promise<void> {
  const reason = "the gateway restarted before a decision";
  for (const request of await approvals.closeOrphans(reason)) {
    const last = (await receipts.query({ callId: request.callId })).at(-1);
    if (last && last.phase === "requested") {
      await receipts.append({
        runId: last.runId,
        callId: last.callId,
        toolPath: last.toolPath,
        phase: "denied",
        approval: last.approval,
        policy: last.policy,
        decision: "denied",
        decidedBy: "system",
        reason,
        sessionId: last.sessionId,
      });
    }
    log(`closed orphaned approval for tools.${request.toolPath} (${request.callId})`);
  }
}

import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Scope from "effect/Scope";
import { createApprovalBroker } from "@openassistant/core/approvals";
import {
  createCodeModeRunner,
  createTypechecker,
  GATEWAY_PRACTICE_CHECKS,
  openDeclarationCache,
  type Typechecker,
} from "@openassistant/core/codemode";
import { createSecretRegistry } from "@openassistant/core/receipts";
import { createSandboxPool, defaultSandboxLimits, type SandboxPool } from "@openassistant/core/sandbox";
import { closeSourceKinds, SOURCE_KINDS } from "@openassistant/core/sources";
import { resolveConfigDir } from "../auth/paths.ts";
import { createAuthResolver, type AuthResolver } from "../auth/resolve.ts";
import { openAuthStore } from "../auth/store.ts";
import { declarationCacheFile, loadGatewaySettings } from "../config-adapter.ts";
import { createConversations } from "../conversations/service.ts";
import { recordTurnEvents } from "../conversations/turn-events.ts";
import { createEventBus } from "../events/bus.ts";
import type { Gateway, GatewayOptions } from "../gateway.ts";
import { resolveHttpToken } from "../http/token.ts";
import { loadAnthropicSdk } from "../model/sdk.ts";
import { defaultSettings, type GatewaySettings } from "../settings.ts";
import { surfaceCredentials } from "../surfaces/registry.ts";
import { staticToolSource, type ToolSource } from "../tools-source.ts";
import {
  gatewayHook,
  observeApprovals,
  observerHooks,
  refuseWithoutCriticalPlugins,
  rolesFrom,
  turnHookText,
  roundSystemText,
} from "../hooks/gateway-hooks.ts";
import { formatRunResultForModel } from "@openassistant/core/codemode";
import { openGatewayRunJournal } from "../runs/journal.ts";
import { cutOffTurns, runsOfCutOffTurn } from "../runs/cut-off-turns.ts";
import { createRunControl } from "../runs/operator-control.ts";
import { pendingRuns } from "../runs/pending.ts";
import { claimingRuns, takenOverRun } from "../runs/jobs/take-over.ts";
import { approvalsToKeep, findResumable, type Resumable, resumeRuns, type ResumeReport } from "../runs/resume.ts";
import { createHookSet } from "@openassistant/core/hooks";
import { withCeilings } from "../schedules/ceiling.ts";
import { holdResumedCeilings, openGatewaySchedules, resumedSchedules } from "../schedules/gateway-schedules.ts";
import { openPgAbilityRunClaims } from "@openassistant/core/abilities";
import { scheduleToolBinding } from "../schedules/tools.ts";
import { abilityToolBinding, workspaceDefinesAbilities } from "../abilities/tools.ts";
import { httpAndConsole } from "./http-console.ts";
import { openClientSessions } from "../clients/assemble.ts";
import { toolsForSession } from "../clients/session-tools.ts";
import { mcpServerService } from "./mcp-server.ts";
import { modelsByProfile } from "./models.ts";
import { closeOrphanedApprovals } from "./orphaned-approvals.ts";
import { shareConsoleEvents } from "./console-signals.ts";
import { attempt, onClose, resource } from "./resource.ts";
import { storageFor } from "../storage/index.ts";
import { openStores, storageLayer } from "./storage-layer.ts";
import { withHostHooks } from "@openassistant/core/hooks";
import { type GatewayAbilities, openGatewayAbilities } from "../abilities/gateway-abilities.ts";

/** How long shutdown waits for cancelled turns to record their outcome before closing the DB. */
const SHUTDOWN_GRACE_MS = 5_000;

/** What shutdown and the warm-ups share: whether the gateway is closing, and why. */
interface Life {
  closing: boolean;
  reason: string;
}

/**
 * Assembles the gateway in one `Scope`: each service is opened as a resource of that scope, so a
 * start that fails half way (a port in use, a refused key file, a broken database) closes exactly
 * what it had opened, in reverse, and reports its own error; shutdown stops the conversations and
 * closes the same scope. The order below is the start's, and reversed, the shutdown's.
 */
export async function assembleGateway(options: GatewayOptions): Promise<Gateway> {
  const scope = Scope.makeUnsafe();
  const life: Life = { closing: false, reason: "gateway shutting down" };
  const exit = await Effect.runPromiseExit(Scope.provide(openGateway(options, scope, life), scope));
  if (Exit.isSuccess(exit)) return exit.value;
  // Closing, not failing: the warm-ups it cuts short are not reported.
  life.closing = true;
  await Effect.runPromise(Scope.close(scope, exit));
  throw Cause.squash(exit.cause);
}

function openGateway(
  options: GatewayOptions,
  scope: Scope.Closeable,
  life: Life,
): Effect.Effect<Gateway, unknown, Scope.Scope> {
  return Effect.gen(function* () {
    const env = options.env ?? {};
    // One registry for every credential: config and plugin secrets and MCP logins are registered while
    // loading; auth profiles on each read, the HTTP token, console and receipt keys when loaded (below).
    // Every log line passes it.
    const secrets = options.loaded?.secrets ?? createSecretRegistry();
    const rawLog = options.log ?? (() => {});
    const log = (line: string) => rawLog(secrets.redact(line));
    // The child processes started before the config loaded are the gateway's from here on.
    const early = options.processes;
    // (A pool or checker the caller passes as well is the caller's, and the early one unused.)
    if (early && !options.sandbox) yield* onClose("early sandbox pool", () => early.sandbox.close(), log);
    if (early && !options.typechecker) yield* onClose("early typechecker", () => early.typechecker.close(), log);

    const loaded = options.tools
      ? undefined
      : (options.loaded ??
        (yield* attempt(() => loadGatewaySettings(options.cwd, env, { watch: options.watchTools, secrets, log }))));
    const base = loaded?.settings ?? defaultSettings(options.cwd);
    const settings: GatewaySettings = {
      ...base,
      ...options.settings,
      turn: { ...base.turn, ...options.settings?.turn },
    };
    // #33: `tools.schedules.*`, bound to the schedules once the stores are open (below).
    const scheduleTools = loaded?.scheduleTools ?? (options.scheduleTools ? scheduleToolBinding() : undefined);
    // #32: `tools.abilities.*` when an ability is defined (abilities/tools.ts); bound once abilities are open.
    const abilityTools =
      loaded?.abilityTools ??
      (options.tools && workspaceDefinesAbilities(settings.projectRoot) ? abilityToolBinding() : undefined);
    const toolSource: ToolSource = yield* resource(
      "tool sources",
      () =>
        options.tools
          ? staticToolSource(
              {
                ...options.tools,
                ...(options.scheduleTools && scheduleTools ? scheduleTools.tree : {}),
                ...abilityTools?.tree,
              },
              openDeclarationCache(declarationCacheFile(settings.dataDir)),
            )
          : loaded!.tools,
      async (source) => {
        source.close();
        // Tool source kinds: MCP servers' HTTP sessions end, stdio server processes are stopped.
        await closeSourceKinds(SOURCE_KINDS);
      },
      log,
    );

    // #29: a critical plugin that did not load stops the start (hooks/gateway-hooks.ts).
    yield* attempt(() => refuseWithoutCriticalPlugins(toolSource));
    // Runs read the hooks like their tools (a snapshot that cannot be built fails the run, never skips a hook).
    // #33: each schedule's tool ceiling is the first tool.before hook (schedules/ceiling.ts).
    const ceilings = new Map<string, readonly string[] | undefined>();
    const withScheduleCeilings = withCeilings(ceilings);
    const noHooks = createHookSet([]);
    // #32: with the abilities' own hooks (enforcement, status in the prompt), set once the runner exists.
    let abilities: GatewayAbilities | undefined;
    const hooks = () => {
      const set = toolSource.current().hooks;
      return withScheduleCeilings(abilities ? withHostHooks(set, abilities.hooks) : (set ?? noHooks));
    };
    const rolesOf = rolesFrom(settings);

    const events = createEventBus((e) => log(`event listener failed: ${e instanceof Error ? e.message : String(e)}`));
    const configDir = options.configDir ?? resolveConfigDir(env);
    secrets.add("config-field", settings.secrets);
    secrets.add("surface-token", surfaceCredentials(settings.surfaces));
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
    const httpToken = settings.http
      ? yield* attempt(() => resolveHttpToken(settings.dataDir, settings.http!.token, secrets))
      : undefined;
    const redact = secrets.redact;

    // The receipt chain's HMAC key and head live in the config dir, outside the database.
    // `storage.url` set → PostgreSQL, never the SQLite file (storage/index.ts).
    const storage = storageFor(settings);
    const stores = yield* openStores(
      storageLayer({ location: storage.location, keyDir: configDir, secrets, log }, log, storage.backend),
    );
    const { receipts, sessions } = stores;

    // The pool is spawned while the typechecker warms up (both are off the first turn's path).
    // An early pool prepared its instances for the default memory size; a configured one gets its own pool.
    const pool = yield* sandboxPool(options, settings, log);
    const poolWarm = pool
      .warmUp({ ready: 1 })
      .catch(
        (e) =>
          life.closing ||
          log(`sandbox warm-up failed (runs will spawn on demand): ${e instanceof Error ? e.message : String(e)}`),
      );
    // The checker loads TypeScript in its own process, in parallel with the sandbox pool: nothing
    // blocks this thread meanwhile, and "ready" still means the first check is fast.
    const typechecker: Typechecker =
      options.typechecker ??
      early?.typechecker ??
      (yield* resource(
        "typechecker",
        () => createTypechecker({ practiceChecks: GATEWAY_PRACTICE_CHECKS }),
        (t) => t.close(),
        log,
      ));

    // Model-side facts (rotations, model errors, compactions) are recorded until the stores close.
    yield* resource(
      "turn events",
      () => recordTurnEvents({ events, sessions, redact, log }),
      (stop) => stop(),
      log,
    );

    const approvals = createApprovalBroker({ ...stores.approvals, defaultTimeoutMs: settings.approvalTimeoutMs });
    // #30: runs a previous process left pending are resumed (`resumeInterrupted`); the approvals they
    // will ask again stay open (their cards live), every other orphan is closed as before.
    // #31: on a shared database the journal is there, and a run is resumed by the gateway that claims
    // its job once its gateway died (runs/jobs/), never by a start: the run may be live on another one.
    const shared = stores.runs;
    const journal = shared?.journal ?? openGatewayRunJournal(settings.dataDir);
    const leftPending = yield* attempt(() => pendingRuns(receipts, journal));
    const resumable = shared ? [] : yield* attempt(() => findResumable(receipts, journal, leftPending));
    const releaseKept = approvals.hold(approvalsToKeep(resumable));
    // #30: turns a kill cut off with no run to resume, found before any surface takes a message.
    // #31: not on a shared database: an unfinished turn there may be in progress on another gateway.
    const cutOff = shared
      ? { answer: [], tooOld: [] }
      : cutOffTurns(yield* attempt(() => sessions.unfinishedTurns()), resumable, Date.now());
    yield* attempt(() => closeOrphanedApprovals(approvals, receipts, log));
    yield* resource(
      "approval.decided hooks",
      () => observeApprovals(approvals, observerHooks(toolSource)),
      (unsubscribe) => unsubscribe(),
      log,
    );
    // On a shared database: a decision made on another gateway lets the call waiting here go on.
    const decisions = stores.approvalDecisions;
    if (decisions)
      yield* resource(
        "approval decisions",
        () => decisions.subscribe((id) => void approvals.settleFromStore(id)),
        (stop) => stop(),
        log,
      );
    approvals.subscribe((e) =>
      events.emit(
        e.type === "requested"
          ? { type: "approval.requested", request: e.request }
          : { type: "approval.decided", callId: e.request.callId, decision: e.decision },
      ),
    );
    // The MCP server's runner (#34) takes the same options, without the journal.
    const runnerOptions = {
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
    } satisfies Parameters<typeof createCodeModeRunner>[0];
    const ownRunner = yield* resource(
      "runner",
      () =>
        createCodeModeRunner({
          ...runnerOptions,
          // #30: each run's call order, answers and nondeterminism, so a run cut off by a restart can resume.
          journal,
        }),
      // Abandons calls still running (each recorded as failed with the reason).
      (r) => r.close({ reason: life.reason }),
      log,
    );
    // #31: on a shared database each new run is held as a job, completed when it ends.
    const runner = shared ? claimingRuns(ownRunner, shared.jobs) : ownRunner;
    // #32: abilities (docs/abilities.md): their steps run on this gateway's runner (not as jobs); runs left running are resumed below.
    abilities = openGatewayAbilities({
      projectRoot: settings.projectRoot,
      openStore: stores.openSurfaceStore,
      runner: ownRunner,
      receipts,
      journal,
      tools: () => toolSource.current().tree,
      entries: () => toolSource.current().entries ?? [],
      // `agent` steps: a turn of the conversations service (created below; called only once running).
      agentTurn: (m) => conversations.handleMessage(m),
      sessions,
      events,
      log,
      redact,
      ...(settings.storageUrl ? { sharedUrl: settings.storageUrl } : {}),
      ...(shared ? { jobs: shared.jobs } : {}),
    });
    if (abilities) abilityTools?.bind({ service: abilities.service, sessions });
    const abilitySteps = abilities ? yield* attempt(() => abilities!.service.stepRunsToResume()) : new Set<string>();
    // The steps of ability runs left running are resumed by their ability (resumeAll), not as runs of their own.
    const resumeHere = resumable.filter((r) => !abilitySteps.has(r.run.runId));
    // Before the runner closes: what still waits for a person is denied by "system".
    yield* onClose("approvals", () => approvals.close(), log);

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
    yield* resource(
      "checker warm-ups",
      () =>
        toolSource.subscribe((snapshot) => {
          typechecker.warmUp(snapshot.declarations.text).catch(() => {}); // a failure shows in the next check
        }),
      (unsubscribe) => unsubscribe(),
      log,
    );
    // Ready once the pool is warm. The checker keeps warming in its own process: a check that
    // comes first waits for it (nothing runs unchecked), and a real first turn spends longer than
    // that waiting for the model.
    yield* Effect.promise(() => poolWarm);

    const modelFor = modelsByProfile({ settings, auth, authStore, env, given: options.model });
    // #34: client sessions (tools.client.* per session), on the HTTP API when it is on.
    const clients = yield* openClientSessions({
      settings,
      events,
      secrets,
      toolSource,
      handleMessage: (m) => conversations.handleMessage(m),
      log,
    });
    const conversations = createConversations({
      sessions,
      events,
      redact,
      turnSettings: settings.turn,
      // #29: chat.message context and prompt.system text (hooks/gateway-hooks.ts).
      hookText: (message) => turnHookText(hooks(), message, rolesOf),
      // #32: prompt.system text, asked before each model round (hooks/gateway-hooks.ts).
      roundText: (message) => roundSystemText(hooks(), message, rolesOf),
      log,
      turnDeps: (session) => ({
        model: modelFor(session.settings.profile),
        runner,
        receipts,
        typechecker,
        tools: () => toolsForSession(toolSource.current(), session.key, clients?.hub.toolsFor(session.key)),
      }),
    });

    // #33: runs a schedule asked for that resume here keep its ceiling (schedules/ceiling.ts).
    const pinned = yield* attempt(() =>
      holdResumedCeilings(
        resumable.map((r) => r.context.requestedBy),
        stores.schedules,
        ceilings,
      ),
    );
    // #33: the config's schedules declared, the scheduler started; its fires are turns of `conversations`.
    const schedules = yield* resource(
      "schedules",
      () =>
        openGatewaySchedules({
          store: stores.schedules,
          receipts,
          sessions,
          conversations,
          events,
          ...(options.clock ? { clock: options.clock } : {}),
          ceilings,
          pinned,
          config: loaded?.config.config.schedules ?? [],
          // #33: ability schedules start their runs here (schedules/ability-fire.ts).
          ...(abilities ? { abilities: abilities.service } : {}),
          // #33 crash mid-fire: on SQLite this gateway owns the file, so a `running` occurrence is a stopped one's.
          ...(shared
            ? { firing: openPgAbilityRunClaims(settings.storageUrl!) }
            : {
                settleStranded: {
                  resumed: resumedSchedules([
                    ...resumable.map((r) => r.context.requestedBy),
                    ...cutOff.answer.map((t) => t.userId),
                  ]),
                },
              }),
          log,
        }),
      (s) => s.close(life.reason),
      log,
    );
    scheduleTools?.bind({ schedules: schedules.service, sessions, receipts });

    // #31: on a shared database, the consoles of every gateway see each other's live events.
    const otherGateways = yield* shareConsoleEvents({ stores, events, log });
    const surfacesOut = yield* httpAndConsole({
      settings,
      otherGateways,
      stores,
      approvals,
      // The console cancels only what no process of this gateway runs: runs left pending at start, not resumed.
      runs: createRunControl({
        receipts,
        journal,
        leftAtStart: leftPending.map((r) => r.runId),
        resumed: resumable.map((r) => r.run.runId),
      }),
      schedules: schedules.service,
      ...(abilities ? { abilities: abilities.service } : {}),
      events,
      toolSource,
      redact,
      secrets,
      httpToken,
      ...(clients ? { clients: clients.endpoint } : {}),
      health: () => ({
        tools: toolSource.current().count,
        activeTurns: conversations.activeTurns,
        shuttingDown: life.closing,
      }),
      log,
    });

    // #34: the tools served to MCP clients (off unless mcpServer.enabled).
    const mcpServer = yield* mcpServerService({
      settings,
      runnerOptions,
      toolSource,
      secrets,
      events,
      closing: () => life.reason,
      log,
    });

    const resuming = new AbortController();
    let resumed: Promise<ResumeReport[]> | undefined;
    /** #30: resumes the runs found at start and continues their conversations (once; after the surfaces started). */
    function resumeInterrupted(options: { readonly takeOverWhile?: () => boolean } = {}): Promise<ResumeReport[]> {
      if (resumed) return resumed;
      void abilities?.service.resumeAll(options);
      resumed = Promise.all([
        resumeRuns(resumeHere, {
          runner,
          tools: () => toolSource.current().tree,
          signal: resuming.signal,
          log,
          continueTurn: continueResumedTurn,
        }).finally(releaseKept),
        answerCutOffTurns(),
      ]).then(([reports]) => reports);
      // #31: from now on, this gateway claims and resumes the runs of gateways that died.
      shared?.jobs.takeOver(resumeTakenOver, options.takeOverWhile);
      return resumed;
    }

    async function continueResumedTurn(r: Resumable, result: Awaited<ReturnType<typeof runner.runPromise>>) {
      if (!r.context.sessionId) return;
      await conversations.continueResumed({
        runId: r.run.runId,
        sessionId: r.context.sessionId,
        ...(r.context.requestedBy ? { requestedBy: r.context.requestedBy } : {}),
        resultText: formatRunResultForModel(result),
      });
    }

    /** #31: a run whose gateway died, claimed here through its job: resumed by replay like one found at start. */
    async function resumeTakenOver(runId: string, signal: AbortSignal): Promise<void> {
      // #32: an ability step's run is resumed by its ability (the gateway that claims the ability run), never on its own
      // (a step's run has no turn context today, so it would find nothing to resume anyway: this keeps it so).
      if (abilities && (await abilities.service.stepRunsToResume()).has(runId)) return;
      const run = await takenOverRun(receipts, journal, runId);
      if (!run) {
        log(`run ${runId} of a stopped gateway: nothing to resume (every call has an outcome, or no snippet was kept)`);
        return;
      }
      const release = approvals.hold(approvalsToKeep([run]));
      try {
        await resumeRuns([run], {
          runner: ownRunner,
          tools: () => toolSource.current().tree,
          signal: AbortSignal.any([signal, resuming.signal]),
          log,
          continueTurn: continueResumedTurn,
        });
      } finally {
        release();
      }
    }

    /** #30: answers again the turns a kill cut off while the model answered (each in its session's queue). */
    async function answerCutOffTurns(): Promise<void> {
      const why =
        "(The gateway was killed during this turn more than a day before it started again; it was not answered again.)";
      for (const t of cutOff.tooOld)
        await sessions.finishTurn(t.id, { stopReason: "aborted", unverified: false, runIds: [], answer: why });
      await Promise.all(
        cutOff.answer.map(async (t) => {
          try {
            log(`answering again turn ${t.id}, cut off by a restart while the model answered`);
            await conversations.answerCutOff(t, await runsOfCutOffTurn(receipts, t));
          } catch (e) {
            log(`answering again turn ${t.id} failed: ${e instanceof Error ? e.message : String(e)}`);
          }
        }),
      );
    }

    async function shutdown(reason = "gateway shutting down"): Promise<void> {
      if (life.closing) return;
      life.closing = true;
      life.reason = reason;
      resuming.abort(reason);
      abilities?.service.close(reason);
      // New messages are refused from the first moment; the gateway.stop hooks run while the turns
      // in progress are cancelled and record their outcome.
      // #33: no occurrence fires from here on; fires in progress are cancelled with the turns.
      const schedulesClosed = schedules.close(reason);
      const turnsClosed = conversations.close(reason, SHUTDOWN_GRACE_MS);
      await gatewayHook(observerHooks(toolSource)(), "gateway.stop");
      await turnsClosed;
      await schedulesClosed;
      // Everything above, in reverse: HTTP and console, approvals, runner, checker and pool,
      // the stores (the database last of them), tool sources, the early processes.
      await Effect.runPromise(Scope.close(scope, Exit.void));
    }

    yield* Effect.promise(() => gatewayHook(observerHooks(toolSource)(), "gateway.start"));
    // The model SDK loads after ready (off the path to it), so the first turn normally finds it loaded.
    if (!options.model) setTimeout(() => void loadAnthropicSdk().catch(() => {}), 0);

    const gateway: Gateway = {
      settings,
      events,
      approvals,
      receipts,
      sessions,
      ...(stores.db ? { db: stores.db } : {}),
      openSurfaceStore: stores.openSurfaceStore,
      auth,
      redact,
      secrets,
      http: surfacesOut.http,
      ...(surfacesOut.console ? { console: surfacesOut.console } : {}),
      ...(mcpServer ? { mcpServer: { url: mcpServer.url } } : {}),
      tools: () => toolSource.current(),
      reloadTools: () => toolSource.reload(),
      hasCredentials: () => Boolean(options.model) || credentialSecrets(auth).length > 0,
      handleMessage: abilities ? abilities.withCommands(conversations.handleMessage) : conversations.handleMessage,
      resumeInterrupted,
      schedules,
      ...(abilities ? { abilities: abilities.service } : {}),
      get activeTurns() {
        return conversations.activeTurns;
      },
      warm: checkerWarm.then(() => undefined),
      shutdown,
    };
    return gateway;
  });
}

/** The gateway's sandbox pool: the caller's, the early one, or its own for a configured memory size. */
function sandboxPool(
  options: GatewayOptions,
  settings: GatewaySettings,
  log: (line: string) => void,
): Effect.Effect<SandboxPool, unknown, Scope.Scope> {
  if (options.sandbox) return Effect.succeed(options.sandbox);
  const early = options.processes?.sandbox;
  const memoryBytes = settings.sandboxLimits?.memoryBytes ?? defaultSandboxLimits.memoryBytes;
  if (early && memoryBytes === defaultSandboxLimits.memoryBytes) return Effect.succeed(early);
  if (early) void early.close();
  return resource(
    "sandbox pool",
    () => createSandboxPool({ minIdle: 2, limits: settings.sandboxLimits }),
    (pool) => pool.close(),
    log,
  );
}

/** Events leave the process (SSE, surfaces): scrub the free-text fields that could carry a secret. */
function credentialSecrets(auth: AuthResolver): string[] {
  try {
    return auth.candidates().map((c) => c.secret);
  } catch {
    return [];
  }
}

import { join } from "node:path";
import {
  ABILITIES_HOOK_ID,
  abilityHooks,
  type AbilityRun,
  type AbilityService,
  createAbilityService,
  createPgAbilityRunStore,
  createSqliteAbilityRunStore,
  loadAbilities,
  openPgAbilityRunClaims,
} from "@openassistant/core/abilities";
import type { CodeModeRunner } from "@openassistant/core/codemode";
import { workspaceDir } from "@openassistant/core/config";
import { newId } from "@openassistant/core/db";
import {
  type ActivitySummary,
  formatSummaryForModel,
  type ReceiptReader,
  type RunJournal,
  summarizeRun,
} from "@openassistant/core/receipts";
import type { PluginHooks, ToolTree } from "@openassistant/sdk";
import type { LoadEntry } from "@openassistant/core/plugins";
import type { TurnOutcome } from "../agent/run-turn.ts";
import type { IncomingMessage } from "../conversations/service.ts";
import type { EventBus } from "../events/bus.ts";
import type { RunJobs } from "../runs/jobs/run-jobs.ts";
import type { SessionStore } from "../sessions/store.ts";
import type { GatewayStores } from "../storage/backend.ts";
import { ABILITY_USAGE, isAbilityCommand, parseAbilityCommand } from "./commands.ts";
import { describeAbilityRun } from "./describe.ts";

type AgentTurnRequest = Parameters<NonNullable<Parameters<typeof createAbilityService>[0]["agentTurn"]>>[0];
type StepResult = Awaited<ReturnType<NonNullable<Parameters<typeof createAbilityService>[0]["agentTurn"]>>>;

export interface GatewayAbilities {
  readonly service: AbilityService;
  /** The host's own hooks (id `abilities`): enforcement, status in the prompt, trigger suggestions. */
  readonly hooks: { readonly pluginId: string; readonly hooks: PluginHooks };
  /** `/ability …` typed in any conversation is answered here; every other message goes to `next`. */
  withCommands(next: (m: IncomingMessage) => Promise<TurnOutcome>): (m: IncomingMessage) => Promise<TurnOutcome>;
}

export interface GatewayAbilitiesDeps {
  readonly projectRoot: string;
  readonly openStore: GatewayStores["openSurfaceStore"];
  readonly runner: Pick<CodeModeRunner, "runPromise">;
  readonly receipts: Pick<ReceiptReader, "byRun">;
  readonly journal: RunJournal;
  readonly tools: () => ToolTree;
  /** The loaded tool files and plugins: a plugin (folder or npm package) ships abilities in its `abilities/` folder. */
  readonly entries: () => readonly LoadEntry[];
  readonly sessions: Pick<SessionStore, "getOrCreate" | "get">;
  readonly events: Pick<EventBus, "emit">;
  readonly log: (line: string) => void;
  /** `agent` steps: a model turn in a conversation of the step's own (the conversations' handleMessage). */
  readonly agentTurn?: (m: IncomingMessage) => Promise<TurnOutcome>;
  /** The gateway's redactor: inputs typed into `/ability run` are stored and used redacted. */
  readonly redact: (text: string) => string;
  /**
   * `storage.url`: the gateways of that database each drive only the runs they claim there
   * (`openPgAbilityRunClaims`, one connection), taking over those of a gateway that died.
   */
  readonly sharedUrl?: string;
  /**
   * #31's run jobs (storage.url): the shared journal gives every new run a job, a step's run too;
   * it is completed when the step's run ends (its ability, not the job, decides who resumes it).
   */
  readonly jobs?: Pick<RunJobs, "finished">;
  /** How often runs of a dead gateway are looked for (default 2 s). */
  readonly takeOverEveryMs?: number;
}

/**
 * Abilities in the gateway (docs/abilities.md): `.openassistant/abilities/`, runs in the gateway's
 * store (SQLite, or PostgreSQL with storage.url), their steps run by the gateway's runner.
 * Undefined when the store cannot be opened (said in the log).
 */
export function openGatewayAbilities(deps: GatewayAbilitiesDeps): GatewayAbilities | undefined {
  let store: ReturnType<typeof createSqliteAbilityRunStore>;
  try {
    store = deps.openStore({ sqlite: createSqliteAbilityRunStore, postgres: createPgAbilityRunStore });
  } catch (e) {
    deps.log(`abilities are off: ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  }
  const dir = join(workspaceDir(deps.projectRoot), "abilities");
  const service = createAbilityService({
    store,
    runner: deps.jobs ? stepRunsCompletingJobs(deps.runner, deps.jobs) : deps.runner,
    receipts: deps.receipts,
    journal: deps.journal,
    tools: deps.tools,
    load: () => loadAbilities([dir, ...pluginAbilityDirs(deps.entries())]),
    log: deps.log,
    redact: deps.redact,
    ...(deps.agentTurn ? { agentTurn: (a: AgentTurnRequest) => agentStep(a) } : {}),
    onFinished: (run) => void announce(run),
    ...(deps.sharedUrl
      ? {
          claims: openPgAbilityRunClaims(deps.sharedUrl, {
            onLost: (ids) =>
              deps.log(
                `ability runs ${ids.join(", ")}: this gateway's claim was lost (its database connection dropped) and another gateway took them`,
              ),
          }),
        }
      : {}),
    ...(deps.takeOverEveryMs !== undefined ? { takeOverEveryMs: deps.takeOverEveryMs } : {}),
  });

  /** An `agent` step: the goal as a message in the step's own conversation; its answer is the output. */
  async function agentStep(a: AgentTurnRequest): Promise<StepResult> {
    const session = await deps.sessions.getOrCreate(a.sessionKey, "ability");
    const leave = a.enter(session.id);
    try {
      const outcome = await deps.agentTurn!({
        sessionKey: a.sessionKey,
        surface: "ability",
        text: a.text,
        signal: a.signal,
        ...(a.requestedBy ? { userId: a.requestedBy } : {}),
      });
      if (outcome.stopReason !== "answered")
        return { status: "failed", error: `the model's turn ended ${outcome.stopReason}: ${outcome.text}` };
      return {
        status: "completed",
        output: { text: outcome.text, unverified: outcome.unverified, runIds: outcome.runIds },
      };
    } finally {
      leave();
    }
  }

  /** A run that ended is told to its conversation (`ability.finished`: Discord posts it, the terminal prints it). */
  async function announce(run: AbilityRun): Promise<void> {
    try {
      const session = run.sessionId ? await deps.sessions.get(run.sessionId) : undefined;
      if (!session) return;
      const summary = await summaryOf(run);
      deps.events.emit({
        type: "ability.finished",
        abilityRunId: run.id,
        ability: run.ability.name,
        status: run.status,
        sessionId: session.id,
        sessionKey: session.key,
        surface: session.surface,
        text: describeAbilityRun(run),
        summary,
        summaryText: formatSummaryForModel(summary),
      });
    } catch (e) {
      deps.log(`announcing ability run ${run.id} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  async function summaryOf(run: AbilityRun): Promise<ActivitySummary> {
    const ids = run.steps.flatMap((s) =>
      s.runId && run.ability.steps.find((d) => d.id === s.id)?.type !== "ability" ? [s.runId] : [],
    );
    const receipts = (await Promise.all(ids.map((id) => deps.receipts.byRun(id)))).flat();
    return summarizeRun(receipts);
  }

  async function answer(m: IncomingMessage): Promise<{ text: string; run?: AbilityRun }> {
    const command = parseAbilityCommand(m.text);
    const session = await deps.sessions.getOrCreate(m.sessionKey, m.surface);
    switch (command.kind) {
      case "usage":
        return { text: command.error };
      case "list": {
        const loaded = await service.list();
        const lines = [...loaded.abilities.values()].map((a) => `• ${a.name} — ${a.description}`);
        const problems = loaded.diagnostics.map((d) => `⚠️ ${d.source}:${d.line ?? 1}:${d.column ?? 1}: ${d.message}`);
        return {
          text: [
            ...(lines.length ? lines : ["No abilities (add .openassistant/abilities/<name>/ability.yaml)."]),
            ...problems,
          ].join("\n"),
        };
      }
      case "run": {
        const started = await service.start(command.name, command.inputs, {
          sessionId: session.id,
          ...(m.userId ? { requestedBy: m.userId } : {}),
        });
        if (!started.ok) return { text: started.error };
        const run = await service.settledOrWaiting(started.run.id);
        return { text: describeAbilityRun(run), run };
      }
      case "status":
      case "cancel": {
        const run = command.runId ? await service.get(command.runId) : await service.ofSession(session.id);
        if (!run)
          return {
            text: command.runId
              ? `No ability run ${command.runId}.`
              : `No ability has run in this conversation. ${ABILITY_USAGE}`,
          };
        if (command.kind === "status") return { text: describeAbilityRun(run), run };
        if (run.status !== "running") return { text: `Nothing to cancel: ${describeAbilityRun(run)}`, run };
        const ended = (await service.cancel(run.id, `cancelled by ${m.userId ?? "the user"} (/ability cancel)`)) ?? run;
        if (ended.status === "running")
          return {
            text: `Not cancelled: another gateway of the database drives this run; /ability cancel reaches it through the surface that gateway serves, or here once it stopped. ${describeAbilityRun(ended)}`,
            run: ended,
          };
        return { text: describeAbilityRun(ended), run: ended };
      }
    }
  }

  return {
    service,
    hooks: { pluginId: ABILITIES_HOOK_ID, hooks: abilityHooks(service.enforcement) },
    withCommands: (next) => async (m) => {
      if (!isAbilityCommand(m.text)) return next(m);
      const { text, run } = await answer(m);
      const summary = run ? await summaryOf(run) : { runIds: [], items: [], omittedReads: 0 };
      return {
        turnId: newId("turn"),
        text,
        summary,
        summaryText: formatSummaryForModel(summary),
        unverified: false,
        runIds: summary.runIds,
        events: [],
        stopReason: "answered",
        messages: [],
        usage: { inputTokens: 0, outputTokens: 0, rounds: 0 },
        omittedHistory: 0,
      };
    },
  };
}

/** The runner whose step runs complete their job when they end (a kill leaves it, and `resumeTakenOver` skips ability steps). */
function stepRunsCompletingJobs(
  runner: Pick<CodeModeRunner, "runPromise">,
  jobs: Pick<RunJobs, "finished">,
): Pick<CodeModeRunner, "runPromise"> {
  return {
    runPromise: async (code, opts) => {
      const result = await runner.runPromise(code, opts);
      jobs.finished(result.runId);
      return result;
    },
  };
}

/**
 * Where loaded plugins keep their abilities: `<plugin dir>/abilities/<name>/ability.yaml` (a folder
 * plugin, a workspace `plugins/<dir>`, an npm package). The workspace's own come first: a plugin's
 * ability of the same name is left out with a warning.
 */
export function pluginAbilityDirs(entries: readonly LoadEntry[]): string[] {
  return entries.filter((e) => e.kind === "plugin" && e.status === "loaded").map((e) => join(e.source, "abilities"));
}

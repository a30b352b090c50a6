import type { ToolTree } from "@openassistant/sdk";
import type { CodeModeRunner } from "../codemode/runner.ts";
import { newId } from "../db/new-id.ts";
import type { ReceiptReader } from "../receipts/port.ts";
import { redactDeep } from "../receipts/redact.ts";
import type { RunJournal } from "../receipts/replay/port.ts";
import { AbilityEnforcement } from "./enforce.ts";
import { driveAbilityRun, newAbilityRun, type StepResult } from "./engine.ts";
import { checkInputs } from "./inputs.ts";
import type { LoadedAbilities } from "./load.ts";
import { isFinished, type AbilityRun, type AbilityRunClaims, type AbilityRunStore } from "./run.ts";
import { createRunnerStepExecutor } from "./runner-executor.ts";
import type { Ability, AbilityStep } from "./types.ts";

export interface AbilityServiceOptions {
  readonly store: AbilityRunStore;
  readonly runner: Pick<CodeModeRunner, "runPromise">;
  readonly receipts: Pick<ReceiptReader, "byRun">;
  readonly journal: Pick<RunJournal, "read">;
  readonly tools: () => ToolTree;
  /** Reads the definitions (again: an edit applies to the next run). */
  readonly load: () => Promise<LoadedAbilities>;
  /**
   * `agent` steps: one model turn in a conversation of the step's own (`sessionKey`), with the goal
   * as its message; `enter` is called with that conversation's id before the turn starts (its calls
   * are then held to the step's tools). Absent: an agent step fails, saying so.
   */
  readonly agentTurn?: (o: {
    readonly sessionKey: string;
    readonly text: string;
    readonly requestedBy?: string;
    readonly signal: AbortSignal;
    readonly enter: (sessionId: string) => () => void;
  }) => Promise<StepResult>;
  /** A run ended (completed, failed, denied, cancelled): tell its session. */
  readonly onFinished?: (run: AbilityRun) => void;
  readonly log?: (line: string) => void;
  /**
   * Scrubs secrets (the gateway's redactor): a run's inputs are stored and used redacted, so a
   * secret typed into `/ability run` never reaches the store, a card or a prompt.
   */
  readonly redact?: (text: string) => string;
  readonly now?: () => number;
  /**
   * Several gateways on one database: a run is driven only by the gateway holding its claim, and
   * every `takeOverEveryMs` (after `resumeAll`) this one takes the runs whose holder died.
   */
  readonly claims?: AbilityRunClaims;
  /** How often runs nobody holds are looked for (default 2 s; only with `claims`). */
  readonly takeOverEveryMs?: number;
}

export interface StartOptions {
  readonly sessionId?: string;
  readonly requestedBy?: string;
}

export type StartResult =
  | { readonly ok: true; readonly run: AbilityRun; readonly done: Promise<AbilityRun> }
  | { readonly ok: false; readonly error: string };

/** Abilities for the gateway: definitions, runs (driven, cancelled, resumed after a restart) and their enforcement. */
export interface AbilityService {
  readonly enforcement: AbilityEnforcement;
  /** The abilities that load, and the diagnostics of those that do not. */
  list(): Promise<LoadedAbilities>;
  /** Starts a run of `name` with inputs checked against its definition; `done` resolves when it ends. */
  start(name: string, inputs: Readonly<Record<string, unknown>>, options?: StartOptions): Promise<StartResult>;
  /** Resolves when the run ended or waits at an approval step (what `/ability run` answers with). */
  settledOrWaiting(runId: string): Promise<AbilityRun>;
  /** Resolves when a run this process drives ends (a run not driven here: as stored). */
  done(runId: string): Promise<AbilityRun | undefined>;
  get(runId: string): Promise<AbilityRun | undefined>;
  /** The latest runs, newest first (the console's list). */
  recent(limit: number): Promise<AbilityRun[]>;
  /** The run of a session: the one running, else its latest. */
  ofSession(sessionId: string): Promise<AbilityRun | undefined>;
  /**
   * Cancels a running run (its current step's run is aborted: a waiting card is closed, receipted).
   * A run another gateway of the database drives is returned still `running` (not cancelled here).
   */
  cancel(runId: string, reason: string): Promise<AbilityRun | undefined>;
  /**
   * The runs the store shows running (a previous process stopped): driven on from where they were;
   * with claims, only those nobody holds, and from then on those whose holder died. Returns the
   * runs this call took. `takeOverWhile`: runs are taken (at start and after) only while it holds
   * (the gateway's: while it holds the Discord connection, as for #31's runs).
   */
  resumeAll(options?: { readonly takeOverWhile?: () => boolean }): Promise<AbilityRun[]>;
  /** The code-mode run ids of the steps of runs left running (the gateway's own resume leaves them to `resumeAll`). */
  stepRunsToResume(): Promise<Set<string>>;
  /** Stops driving runs (shutdown): they stay `running` in the store, to be resumed at the next start. */
  close(reason: string): void;
}

export function createAbilityService(o: AbilityServiceOptions): AbilityService {
  const log = o.log ?? (() => {});
  const now = o.now ?? Date.now;
  let known = new Map<string, Ability>();
  let loadedOnce: Promise<unknown> | undefined;
  const enforcement = new AbilityEnforcement(
    () => known,
    () => (loadedOnce ??= list().catch(() => undefined)),
  );
  const driving = new Map<string, { controller: AbortController; done: Promise<AbilityRun> }>();
  const watchers = new Map<string, Set<(run: AbilityRun) => void>>();
  let closing = false;
  let sweeper: ReturnType<typeof setInterval> | undefined;

  const executor = createRunnerStepExecutor({
    runner: o.runner,
    receipts: o.receipts,
    journal: o.journal,
    tools: o.tools,
    enforcement,
    ...(o.agentTurn
      ? {
          agent: (run: AbilityRun, step: AbilityStep, goal: string, signal: AbortSignal) =>
            o.agentTurn!({
              sessionKey: `ability:${run.id}:${step.id}`,
              text: `${goal}\n\n(This is step "${step.id}" of ability "${run.ability.name}". Use only these tools: ${step.type === "agent" ? step.tools.join(", ") || "none" : "none"}. Answer with what you found or did.)`,
              ...(run.requestedBy ? { requestedBy: run.requestedBy } : {}),
              signal,
              enter: (sessionId) => {
                enforcement.enterSession(sessionId, run, step);
                return () => enforcement.leaveSession(sessionId);
              },
            }),
        }
      : {}),
    nested: async (parent, step, rendered, signal) => {
      const childId = parent.steps.find((s) => s.id === step.id)!.runId!;
      const child =
        (await o.store.get(childId)) ?? (await createRun(rendered.ability, rendered.inputs, parent, childId));
      if (typeof child === "string") return { status: "failed", error: child };
      const onAbort = () => void cancel(child.id, typeof signal.reason === "string" ? signal.reason : "cancelled");
      signal.addEventListener("abort", onAbort, { once: true });
      try {
        const ended = isFinished(child) ? child : await drive(child);
        return resultOf(ended);
      } finally {
        signal.removeEventListener("abort", onAbort);
      }
    },
  });

  async function list(): Promise<LoadedAbilities> {
    const loaded = await o.load();
    known = new Map(loaded.abilities);
    loadedOnce ??= Promise.resolve(loaded);
    return loaded;
  }

  /** A new run's record, saved; or why not. */
  async function createRun(
    name: string,
    given: Readonly<Record<string, unknown>>,
    parent: AbilityRun | StartOptions | undefined,
    id?: string,
  ): Promise<AbilityRun | string> {
    const ability = (await list()).abilities.get(name);
    if (!ability)
      return `no ability "${name}" (abilities: ${[...known.keys()].join(", ") || "none"}; see docs/abilities.md)`;
    const checked = checkInputs(ability.inputSchema, given);
    if (!checked.ok) return `ability "${name}": ${checked.problems.join("; ")}`;
    const isRun = parent && "ability" in parent;
    const run = newAbilityRun({
      id: id ?? newId("ability"),
      ability: { name: ability.name, description: ability.description, hash: ability.hash, steps: ability.steps },
      inputs: o.redact ? redactDeep(checked.inputs, o.redact) : checked.inputs,
      ...(parent?.sessionId ? { sessionId: parent.sessionId } : {}),
      ...(parent?.requestedBy ? { requestedBy: parent.requestedBy } : {}),
      ...(isRun ? { parentRunId: (parent as AbilityRun).id } : {}),
      now: now(),
    });
    await o.store.save(run);
    return run;
  }

  function drive(run: AbilityRun): Promise<AbilityRun> {
    const current = driving.get(run.id);
    if (current) return current.done;
    const controller = new AbortController();
    const done = driveAbilityRun(run, {
      store: o.store,
      executor,
      newRunId: () => newId("run"),
      signal: controller.signal,
      now,
      onChange: (r) => notify(r),
    })
      .catch(async (e: unknown) => {
        // The store failed: the run is left as it was saved last, to be resumed.
        log(`ability run ${run.id} (${run.ability.name}) stopped: ${e instanceof Error ? e.message : String(e)}`);
        return run;
      })
      .then(async (ended) => {
        driving.delete(run.id);
        // Let go before the end is told: whoever learns of it finds the run free.
        if (!run.parentRunId) await o.claims?.release(run.id).catch(() => {});
        enforcement.finish(ended);
        notify(ended);
        if (isFinished(ended) && !ended.parentRunId) o.onFinished?.(ended);
        return ended;
      });
    driving.set(run.id, { controller, done });
    return done;
  }

  function notify(run: AbilityRun): void {
    for (const w of watchers.get(run.id) ?? []) w(run);
  }

  function waitingAtGate(run: AbilityRun): boolean {
    const step = run.ability.steps.find((s) => s.id === run.currentStep);
    const state = run.steps.find((s) => s.id === run.currentStep);
    return step?.type === "approval" && state?.status === "running";
  }

  async function cancel(runId: string, reason: string): Promise<AbilityRun | undefined> {
    const active = driving.get(runId);
    if (active) {
      active.controller.abort(reason);
      return active.done;
    }
    const run = await o.store.get(runId);
    if (!run || isFinished(run)) return run;
    // Another gateway drives it: it is left to that one (its own record would overwrite ours).
    if (o.claims && !run.parentRunId && !(await o.claims.take(run.id))) return run;
    run.status = "cancelled";
    run.error = reason;
    run.updatedAt = now();
    try {
      await o.store.save(run);
    } finally {
      if (o.claims && !run.parentRunId) await o.claims.release(run.id);
    }
    return run;
  }

  /** The running runs not driven here that this gateway may take (all of them on one gateway), driven on. */
  async function takeUnheld(): Promise<AbilityRun[]> {
    const runs = (await o.store.list({ status: "running", limit: 1000 })).filter(
      (r) => !r.parentRunId && !driving.has(r.id),
    );
    const taken: AbilityRun[] = [];
    for (const listed of runs) {
      if (closing || (o.claims && !(await o.claims.take(listed.id)))) continue;
      // Read again under the claim: the last holder may have saved it since the list.
      const run = o.claims ? await o.store.get(listed.id) : listed;
      if (!run || isFinished(run)) {
        await o.claims?.release(listed.id);
        continue;
      }
      log(`resuming ability run ${run.id} (${run.ability.name}) at step ${run.currentStep ?? "(first)"}`);
      void drive(run);
      taken.push(run);
    }
    return taken;
  }

  return {
    enforcement,
    list,
    async start(name, inputs, options = {}) {
      if (closing) return { ok: false, error: "the gateway is stopping" };
      if (options.sessionId) {
        const runs = await o.store.list({ status: "running", sessionId: options.sessionId, limit: 20 });
        const running = runs.find((r) => !r.parentRunId);
        if (running)
          return {
            ok: false,
            error: `ability "${running.ability.name}" (run ${running.id}) is still running in this conversation; /ability cancel stops it`,
          };
      }
      // Claimed before its record is saved: another gateway's sweep never finds it running and free.
      const id = newId("ability");
      if (o.claims && !(await o.claims.take(id)))
        return { ok: false, error: "another gateway holds this run's lock (a hash collision): run it again" };
      const run = await createRun(name, inputs, options, id).catch(async (e: unknown) => {
        await o.claims?.release(id);
        throw e;
      });
      if (typeof run === "string") {
        await o.claims?.release(id);
        return { ok: false, error: run };
      }
      return { ok: true, run, done: drive(run) };
    },
    settledOrWaiting(runId) {
      return new Promise((resolve) => {
        const check = (run: AbilityRun) => {
          if (!isFinished(run) && !waitingAtGate(run)) return;
          watchers.get(runId)?.delete(check);
          resolve(run);
        };
        watchers.set(runId, (watchers.get(runId) ?? new Set()).add(check));
        void o.store.get(runId).then((run) => run && check(run));
      });
    },
    done: (runId) => driving.get(runId)?.done ?? o.store.get(runId),
    get: (runId) => o.store.get(runId),
    recent: (limit) => o.store.list({ limit }),
    async ofSession(sessionId) {
      const runs = await o.store.list({ sessionId, limit: 20 });
      return runs.find((r) => !isFinished(r) && !r.parentRunId) ?? runs.find((r) => !r.parentRunId);
    },
    cancel,
    async resumeAll({ takeOverWhile = () => true } = {}) {
      const taken = takeOverWhile() ? await takeUnheld() : [];
      if (o.claims && !sweeper && !closing) {
        let sweeping = false;
        sweeper = setInterval(() => {
          if (sweeping || closing || !takeOverWhile()) return;
          sweeping = true;
          takeUnheld()
            .catch((e: unknown) => log(`ability runs: could not look for runs to take over: ${(e as Error).message}`))
            .finally(() => (sweeping = false));
        }, o.takeOverEveryMs ?? 2_000);
      }
      return taken;
    },
    async stepRunsToResume() {
      const ids = new Set<string>();
      for (const run of await o.store.list({ status: "running", limit: 1000 }))
        for (const s of run.steps) if (s.status === "running" && s.runId) ids.add(s.runId);
      return ids;
    },
    close(reason) {
      closing = true;
      if (sweeper) clearInterval(sweeper);
      // The claims are let go once this gateway's drives stopped (never while one could still save).
      const claims = o.claims;
      if (claims)
        void Promise.allSettled([...driving.values()].map((d) => d.done)).then(() => claims.close().catch(() => {}));
      for (const w of watchers.values()) w.clear();
      void reason;
    },
  };
}

function resultOf(run: AbilityRun): StepResult {
  if (run.status === "completed") {
    const outputs: Record<string, unknown> = {};
    for (const s of run.steps)
      if (s.status === "completed") Object.defineProperty(outputs, s.id, { value: s.output ?? null, enumerable: true });
    return { status: "completed", output: outputs };
  }
  if (run.status === "denied")
    return { status: "denied", reason: `nested ability ${run.ability.name}: ${run.error ?? "denied"}` };
  return { status: "failed", error: `nested ability ${run.ability.name} ${run.status}: ${run.error ?? ""}` };
}

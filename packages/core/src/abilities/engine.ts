import { buildValidator } from "../sources/input-schema.ts";
import { executionOrder } from "./check.ts";
import type { RunScope, StepView } from "./context.ts";
import { holds } from "./expression.ts";
import type { AbilityRun, AbilityRunStore, StepState } from "./run.ts";
import { renderTemplates, renderText } from "./template.ts";
import type { AbilityStep } from "./types.ts";

/** A step with its templates filled in, as the executor runs it. */
export type RenderedStep =
  | { readonly type: "tool"; readonly tool: string; readonly input: unknown }
  | { readonly type: "code"; readonly code: string; readonly scope: RunScope }
  | {
      readonly type: "approval";
      readonly prompt: string;
      readonly title?: string;
      readonly outputs: Readonly<Record<string, unknown>>;
    }
  | { readonly type: "agent"; readonly goal: string }
  | { readonly type: "ability"; readonly ability: string; readonly inputs: Readonly<Record<string, unknown>> };

export type StepResult =
  | { readonly status: "completed"; readonly output: unknown }
  | { readonly status: "failed"; readonly error: string }
  | { readonly status: "denied"; readonly reason: string };

/** Does a step's work; every effect is a receipted call of the code-mode run `runId`. */
export interface StepExecutor {
  execute(request: {
    readonly run: AbilityRun;
    readonly step: AbilityStep;
    readonly rendered: RenderedStep;
    /** The step's code-mode run id, stored before it started: a run resumed after a restart has a record under it. */
    readonly runId: string;
    readonly signal: AbortSignal;
  }): Promise<StepResult>;
}

export interface DriveDeps {
  readonly store: AbilityRunStore;
  readonly executor: StepExecutor;
  readonly newRunId: () => string;
  /** Aborted by a cancel: the step's run is aborted and the ability ends `cancelled`. */
  readonly signal: AbortSignal;
  /** Each time the run's record changed (a step started or ended). */
  readonly onChange?: (run: AbilityRun) => void;
  readonly now?: () => number;
}

/** What templates and expressions see of a run so far. */
export function scopeOf(run: AbilityRun): RunScope {
  const steps: Record<string, StepView> = {};
  for (const s of run.steps)
    if (s.status === "completed" || s.status === "skipped")
      Object.defineProperty(steps, s.id, { value: { status: s.status, output: s.output }, enumerable: true });
  return { inputs: run.inputs, steps };
}

/**
 * Runs (or goes on with) an ability run to its end: steps in order, each after the steps it needs;
 * `when` false → skipped; the step's output validated; the first step that fails, is denied or
 * cancelled ends the run. A step already finished (before a restart) is not run again; a step that
 * was running is given to the executor under the same code-mode run id, which resumes it by replay.
 * The record is saved before each step starts and after it ends.
 */
export async function driveAbilityRun(run: AbilityRun, deps: DriveDeps): Promise<AbilityRun> {
  const now = deps.now ?? Date.now;
  const save = async () => {
    run.updatedAt = now();
    await deps.store.save(run);
    deps.onChange?.(run);
  };
  for (const step of executionOrder(run.ability.steps)) {
    if (run.status !== "running") break;
    const state = run.steps.find((s) => s.id === step.id)!;
    if (state.status === "completed" || state.status === "skipped") continue;
    if (deps.signal.aborted) return end(run, state, "cancelled", cancelReason(deps.signal), save);
    run.currentStep = step.id;
    const scope = scopeOf(run);
    let outcome: StepResult;
    try {
      if (state.status === "pending" && step.when !== undefined && !holds(step.when, scope)) {
        Object.assign(state, { status: "skipped", endedAt: now() });
        await save();
        continue;
      }
      const rendered = render(step, scope, run);
      if (state.status !== "running") {
        Object.assign(state, { status: "running", runId: deps.newRunId(), startedAt: now() });
        await save();
      }
      outcome = await deps.executor.execute({ run, step, rendered, runId: state.runId!, signal: deps.signal });
    } catch (e) {
      outcome = { status: "failed", error: e instanceof Error ? e.message : String(e) };
    }
    if (deps.signal.aborted) return end(run, state, "cancelled", cancelReason(deps.signal), save);
    if (outcome.status === "completed") {
      const invalid = validationProblem(step, scope, outcome.output);
      if (invalid) outcome = { status: "failed", error: invalid };
    }
    if (outcome.status === "completed") {
      Object.assign(state, { status: "completed", output: outcome.output, endedAt: now() });
      await save();
      continue;
    }
    return end(run, state, outcome.status, outcome.status === "denied" ? outcome.reason : outcome.error, save);
  }
  if (run.status === "running") {
    run.status = "completed";
    delete run.currentStep;
    await save();
  }
  return run;
}

async function end(
  run: AbilityRun,
  state: StepState,
  status: "failed" | "denied" | "cancelled",
  why: string,
  save: () => Promise<void>,
): Promise<AbilityRun> {
  Object.assign(state, { status, error: why, endedAt: Date.now() });
  run.status = status;
  run.error = `step ${state.id}: ${why}`;
  await save();
  return run;
}

function cancelReason(signal: AbortSignal): string {
  return typeof signal.reason === "string" ? signal.reason : "cancelled";
}

function render(step: AbilityStep, scope: RunScope, run: AbilityRun): RenderedStep {
  switch (step.type) {
    case "tool":
      return { type: "tool", tool: step.tool, input: renderTemplates(step.input, scope) };
    case "code":
      return { type: "code", code: step.code, scope };
    case "approval": {
      const outputs: Record<string, unknown> = {};
      for (const s of run.steps)
        if (s.status === "completed")
          Object.defineProperty(outputs, s.id, { value: s.output ?? null, enumerable: true });
      return {
        type: "approval",
        prompt: renderText(step.prompt, scope),
        ...(step.title ? { title: renderText(step.title, scope) } : {}),
        outputs,
      };
    }
    case "agent":
      return { type: "agent", goal: renderText(step.goal, scope) };
    case "ability":
      return {
        type: "ability",
        ability: step.ability,
        inputs: renderTemplates(step.inputs, scope) as Record<string, unknown>,
      };
  }
}

/** Why a step's output fails its validation, or undefined. */
function validationProblem(step: AbilityStep, scope: RunScope, output: unknown): string | undefined {
  const v = step.validation;
  if (!v) return undefined;
  if (v.schema !== undefined) {
    const built = buildValidator(v.schema);
    const checked = built.schema?.safeParse(output);
    if (!checked?.success)
      return `its output fails the step's validation schema: ${checked?.error.issues.map((i) => `${i.path.join(".") || "output"}: ${i.message}`).join("; ") ?? built.problem}`;
  }
  if (v.expression !== undefined) {
    let ok: boolean;
    try {
      ok = holds(v.expression, scope, output ?? null);
    } catch (e) {
      return `its validation expression failed: ${e instanceof Error ? e.message : String(e)}`;
    }
    if (!ok) return `its output fails the step's validation: ${v.expression}`;
  }
  return undefined;
}

/** A new run's record: every step pending. */
export function newAbilityRun(o: {
  readonly id: string;
  readonly ability: AbilityRun["ability"];
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly sessionId?: string;
  readonly requestedBy?: string;
  readonly parentRunId?: string;
  readonly now: number;
}): AbilityRun {
  return {
    id: o.id,
    ability: o.ability,
    inputs: o.inputs,
    ...(o.sessionId ? { sessionId: o.sessionId } : {}),
    ...(o.requestedBy ? { requestedBy: o.requestedBy } : {}),
    ...(o.parentRunId ? { parentRunId: o.parentRunId } : {}),
    status: "running",
    steps: o.ability.steps.map((s) => ({ id: s.id, status: "pending" })),
    startedAt: o.now,
    updatedAt: o.now,
  };
}

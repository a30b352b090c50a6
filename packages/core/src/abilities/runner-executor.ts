import type { ToolTree } from "@openassistant/sdk";
import type { CodeModeRunner } from "../codemode/runner.ts";
import type { ReceiptReader } from "../receipts/port.ts";
import type { RunJournal } from "../receipts/replay/port.ts";
import { readReplayLog } from "../receipts/replay/replay-log.ts";
import type { AbilityEnforcement } from "./enforce.ts";
import type { RenderedStep, StepExecutor, StepResult } from "./engine.ts";
import { withGate } from "./gate.ts";
import type { AbilityRun } from "./run.ts";
import type { AbilityStep } from "./types.ts";

export interface RunnerExecutorDeps {
  readonly runner: Pick<CodeModeRunner, "runPromise">;
  readonly receipts: Pick<ReceiptReader, "byRun">;
  readonly journal: Pick<RunJournal, "read">;
  readonly tools: () => ToolTree;
  readonly enforcement: AbilityEnforcement;
  /** `ability` steps: runs the nested ability to its end (absent: such a step fails, saying so). */
  readonly nested?: (
    run: AbilityRun,
    step: AbilityStep,
    rendered: Extract<RenderedStep, { type: "ability" }>,
    signal: AbortSignal,
  ) => Promise<StepResult>;
  /** `agent` steps: a model turn with the step's goal and tools (absent: such a step fails, saying so). */
  readonly agent?: (run: AbilityRun, step: AbilityStep, goal: string, signal: AbortSignal) => Promise<StepResult>;
}

/**
 * Every `tool`, `code` and `approval` step is one code-mode run of the gateway's runner: its calls
 * pass the whole pipeline (hooks, policy, approval, receipts, journal). A step the store shows
 * running when the gateway started again has a record under its run id: it is run again by replay
 * (answered calls are not executed again; a waiting approval is asked again under its call id, its
 * card still live).
 */
export function createRunnerStepExecutor(deps: RunnerExecutorDeps): StepExecutor {
  return {
    async execute({ run, step, rendered, runId, signal }) {
      if (rendered.type === "ability")
        return deps.nested
          ? deps.nested(run, step, rendered, signal)
          : { status: "failed", error: "nested abilities are not available here" };
      if (rendered.type === "agent")
        return deps.agent
          ? deps.agent(run, step, rendered.goal, signal)
          : { status: "failed", error: "agent steps are not available here" };
      const log = await readReplayLog(deps.receipts, deps.journal, runId);
      const code = log?.context?.code ?? snippetOf(rendered, run, step);
      deps.enforcement.enter(run, step, runId, rendered.type === "approval" ? rendered.prompt : undefined);
      try {
        const result = await deps.runner.runPromise(code, {
          ...(log ? { resume: log } : { runId }),
          tools: withGate(deps.tools()),
          signal,
          ...(run.sessionId ? { sessionId: run.sessionId } : {}),
          ...(run.requestedBy ? { requestedBy: run.requestedBy } : {}),
        });
        if (result.ok)
          return { status: "completed", output: result.valueJson === undefined ? null : JSON.parse(result.valueJson) };
        const denied = result.calls.find((c) => c.status === "denied");
        if (denied)
          return {
            status: "denied",
            reason: `${denied.toolPath} was denied${denied.decidedBy ? ` by ${denied.decidedBy}` : ""}${denied.reason ? `: ${denied.reason}` : ""}`,
          };
        const message = result.error?.message ?? "the step's run failed";
        if (/ToolDeniedError/.test(message)) return { status: "denied", reason: message };
        return { status: "failed", error: message };
      } finally {
        deps.enforcement.leave(runId);
      }
    },
  };
}

/** The fixed snippet of a step: one tool call, the gate, or the step's own code. */
export function snippetOf(
  rendered: Extract<RenderedStep, { type: "tool" | "code" | "approval" }>,
  run: AbilityRun,
  step: AbilityStep,
): string {
  // The snippet reads the run's inputs and finished steps as `inputs` and `steps` (the same on a replay).
  if (rendered.type === "code")
    return `const { inputs, steps } = ${JSON.stringify({ inputs: rendered.scope.inputs, steps: rendered.scope.steps })};\n${rendered.code}`;
  if (rendered.type === "tool")
    return `return await tools${accessOf(rendered.tool)}(${JSON.stringify(rendered.input ?? {})});`;
  const input = {
    ability: run.ability.name,
    run: run.id,
    step: step.id,
    prompt: rendered.prompt,
    outputs: rendered.outputs,
  };
  return `return await tools.abilities.gate(${JSON.stringify(input)});`;
}

/** `github.releases.create` → `["github"]["releases"]["create"]` (no path text reaches the snippet unquoted). */
function accessOf(path: string): string {
  return path
    .split(".")
    .map((s) => `[${JSON.stringify(s)}]`)
    .join("");
}

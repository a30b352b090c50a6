import type { AbilityRun } from "@openassistant/core/abilities";

const MARK: Readonly<Record<string, string>> = {
  pending: "·",
  running: "⏳",
  completed: "✅",
  skipped: "⏭️",
  failed: "❌",
  denied: "⛔",
  cancelled: "🚫",
};

/** A run as people read it: its status, then each step with its mark (and why a step ended it). */
export function describeAbilityRun(run: AbilityRun): string {
  const step = run.ability.steps.find((s) => s.id === run.currentStep);
  const state = run.steps.find((s) => s.id === run.currentStep);
  const waiting = run.status === "running" && step?.type === "approval" && state?.status === "running";
  const head =
    run.status === "running"
      ? waiting
        ? `Ability ${run.ability.name} is waiting for approval at step ${step.id} (the approval card is posted).`
        : `Ability ${run.ability.name} is running (step ${run.currentStep ?? "(starting)"}).`
      : `Ability ${run.ability.name} ${run.status}${run.error ? `: ${run.error}` : "."}`;
  const steps = run.steps
    .map((s) => `${MARK[s.status] ?? "·"} ${s.id}${s.status === "skipped" ? " (skipped)" : ""}`)
    .join(" · ");
  return `${head}\n${steps}\n(run ${run.id})`;
}

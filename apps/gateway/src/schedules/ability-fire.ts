import type { AbilityRun, AbilityService } from "@openassistant/core/abilities";
import { scheduleRequester } from "./ceiling.ts";
import type { FireResult } from "./scheduler.ts";
import type { Schedule } from "./types.ts";

/**
 * An ability schedule's occurrence (docs/schedules.md, "Ability targets"): the ability's run is
 * started in the schedule's conversation, asked for by `schedule:<id>`; the occurrence is done only
 * when that run completed. Failed, denied or cancelled (the occurrence's signal cancels it at the
 * next occurrence): not done, with the run's reason. A missing ability or bad inputs at fire time
 * (the definition changed since creation): not done, naming it.
 */
export async function fireAbility(
  abilities: Pick<AbilityService, "start" | "cancel"> | undefined,
  s: Schedule,
  sessionId: string | undefined,
  signal: AbortSignal,
): Promise<FireResult> {
  const t = s.target;
  if (!("ability" in t)) throw new Error(`schedule ${s.id} runs a prompt, not an ability`);
  if (!abilities) return { turnId: "", runIds: [], ok: false, error: "abilities are not available in this gateway" };
  const started = await abilities.start(t.ability, t.inputs, {
    ...(sessionId ? { sessionId } : {}),
    requestedBy: scheduleRequester(s.id),
  });
  if (!started.ok) return { turnId: "", runIds: [], ok: false, error: started.error };
  const cancel = () =>
    void abilities.cancel(started.run.id, typeof signal.reason === "string" ? signal.reason : "cancelled");
  if (signal.aborted) cancel();
  else signal.addEventListener("abort", cancel, { once: true });
  try {
    return resultOf(await started.done);
  } finally {
    signal.removeEventListener("abort", cancel);
  }
}

/** The occurrence's outcome from the ability run's end: its id, its steps' runs, why not when not completed. */
function resultOf(run: AbilityRun): FireResult {
  const stepRuns = run.steps.flatMap((st) => (st.runId ? [st.runId] : []));
  const ok = run.status === "completed";
  return {
    turnId: "",
    abilityRunId: run.id,
    runIds: stepRuns,
    ok,
    ...(ok
      ? {}
      : { error: `ability ${run.ability.name} run ${run.id} ${run.status}: ${run.error ?? "no reason given"}` }),
  };
}

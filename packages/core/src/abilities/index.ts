/** Abilities (docs/abilities.md): definitions, their checks and the run engine. */
export { loadAbilities, type LoadedAbilities } from "./load.ts";
export { checkInputs, parseKeyValues } from "./inputs.ts";
export { driveAbilityRun, newAbilityRun, type RenderedStep, type StepExecutor, type StepResult } from "./engine.ts";
export { executionOrder } from "./check.ts";
export type { AbilityRun, AbilityRunStore, StepState } from "./run.ts";
export { createSqliteAbilityRunStore } from "./sqlite/store.ts";
export type { Ability, AbilityStep, PinnedAbility } from "./types.ts";
export { createAbilityService, type AbilityService } from "./service.ts";
export { abilityHooks, ABILITIES_HOOK_ID } from "./enforce.ts";

/** Abilities (docs/abilities.md): definitions, their checks, the run engine and its enforcement. */
export { loadAbilities } from "./load.ts";
export { parseKeyValues } from "./inputs.ts";
export { checkInputs as checkAbilityInputs } from "./inputs.ts";
export type { AbilityRun } from "./run.ts";
export { createSqliteAbilityRunStore } from "./sqlite/store.ts";
export { ABILITY_MIGRATIONS, createPgAbilityRunStore } from "./postgres/store.ts";
export { openPgAbilityRunClaims } from "./postgres/run-locks.ts";
export { createAbilityService, type AbilityService } from "./service.ts";
export { abilityHooks, ABILITIES_HOOK_ID } from "./enforce.ts";

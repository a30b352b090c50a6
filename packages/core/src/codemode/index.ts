export {
  generateDeclarations,
  openDeclarationCache,
  type DeclarationCache,
  type GeneratedDeclarations,
} from "./declarations.ts";
export { PRELUDE } from "./ambient-declarations.ts";
export { createTypechecker, GATEWAY_PRACTICE_CHECKS, type Typechecker } from "./typecheck.ts";
export { createCodeModeRunner, newRunId, type CodeModeRunner } from "./runner.ts";
export { RESUMED } from "./tool-invoker.ts";
export type { CallOutcome, CallProgress } from "./run-types.ts";
export { formatRunResultForModel } from "./format-result.ts";
export { approxTokens, namespaceListing, promptToolListing, withDiscovery } from "./tool-discovery.ts";
export { type DeclarationsForCode, declarationsReachedBy, WHOLE_DECLARATIONS_TOOLS } from "./reachable-declarations.ts";
/** The in-process checker (`doctor`); loaded on demand because it imports TypeScript. */
export async function loadProgramChecker(): Promise<import("./typecheck-program.ts").ProgramChecker> {
  return (await import("./typecheck-program.ts")).createProgramChecker();
}

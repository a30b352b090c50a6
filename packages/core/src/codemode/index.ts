export {
  generateDeclarations,
  openDeclarationCache,
  type DeclarationCache,
  type GeneratedDeclarations,
} from "./declarations.ts";
export { PRELUDE, PRELUDE_GLOBALS } from "./ambient-declarations.ts";
export {
  createTypechecker,
  GATEWAY_PRACTICE_CHECKS,
  OA_DIAGNOSTIC,
  type Typechecker,
  type TypecheckerOptions,
  type TypecheckDiagnostic,
  type TypecheckResult,
} from "./typecheck.ts";
export { precheckSnippet, type PrecheckRefusal } from "./precheck.ts";
export { SnippetTranspileError, transpileSnippet } from "./transpile.ts";
export {
  createCodeModeRunner,
  newRunId,
  type CodeModeRunner,
  type CodeModeRunnerOptions,
  type RunOptions,
} from "./runner.ts";
export type { StandingApprovals } from "./tool-invoker.ts";
export type { CallOutcome, CallProgress, RunResult } from "./run-types.ts";
export { formatRunResultForModel } from "./format-result.ts";
export { approxTokens, namespaceListing, promptToolListing, withDiscovery } from "./tool-discovery.ts";
export {
  type DeclarationsForCode,
  declarationsReachedBy,
  reachableToolTree,
  WHOLE_DECLARATIONS_TOOLS,
} from "./reachable-declarations.ts";
/** The in-process checker (`doctor`); loaded on demand because it imports TypeScript. */
export async function loadProgramChecker(): Promise<import("./typecheck-program.ts").ProgramChecker> {
  return (await import("./typecheck-program.ts")).createProgramChecker();
}

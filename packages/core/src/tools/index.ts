/**
 * The tool tree, in one place: the naming rule, the shape limits, flattening and filtering,
 * enablement (`config.tools`) and operator patterns, and own-key lookups for names from outside.
 */
export { flattenToolTree } from "./flatten.ts";
export { ownValue } from "./own-keys.ts";
export { isBuiltinNamespace, toolPathProblem } from "./names.ts";
export { matchToolPattern } from "./pattern.ts";

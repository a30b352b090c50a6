/**
 * The tool tree, in one place: the naming rule, the shape limits, flattening and filtering,
 * enablement (`config.tools`) and operator patterns, and own-key lookups for names from outside.
 */
export { filterToolTree, flattenToolTree, indexToolTree, ToolTreeError, type FlatTool } from "./flatten.ts";
export { callableName, isToolSegment, RESERVED_TOOL_NAMES, toolPathProblem } from "./names.ts";
export { isEntryDisabled, isToolEnabled } from "./enablement.ts";
export { checkTreeShape, MAX_TREE_DEPTH } from "./tree-shape.ts";
export { isValidId, normalizeId } from "./plugin-id.ts";
export { matchToolPattern, toolPatternToRegExp } from "./pattern.ts";
export { defineOwn, ownValue } from "./own-keys.ts";

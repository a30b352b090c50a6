/** The tool tree: naming rules, flattening, lookup and operator patterns. */
export { flattenToolTree, indexToolTree, ToolTreeError, type FlatTool } from "./flatten.ts";
export { callableName } from "./names.ts";
export { matchToolPattern, toolPatternToRegExp } from "./pattern.ts";

/** @openassistant/core — the runtime: code mode, sandbox, receipts, approvals, policy, config, plugins. */
export * from "./codemode/index.ts";
export * from "./sandbox/index.ts";
export * from "./receipts/index.ts";
export * from "./approvals/index.ts";
export * from "./policy/index.ts";
export * from "./config/index.ts";
export * from "./plugins/index.ts";
export { flattenToolTree, indexToolTree, ToolTreeError, type FlatTool } from "./tools/flatten.ts";
export { matchToolPattern, toolPatternToRegExp } from "./tools/pattern.ts";
export { openDatabase } from "./db/open.ts";
export { newId } from "./ids.ts";

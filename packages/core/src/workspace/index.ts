/** Assistant-authored tools: checked, approved, written atomically, versioned. */
export { workspaceTools, WORKSPACE_WRITE_TOOLS, type WorkspaceToolsOptions } from "./workspace-tools.ts";
export { toolHistory, type ToolHistory, type ToolVersion } from "./history.ts";
export { checkToolSource, sha256Hex, type SourceCheck } from "./source-check.ts";
export { resolveToolFile } from "./tool-file.ts";

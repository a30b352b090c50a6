/** Assistant-authored tools: checked, approved, written atomically, versioned. */
export { WORKSPACE_WRITE_TOOLS } from "./workspace-tools.ts";
export { toolHistory } from "./history.ts";

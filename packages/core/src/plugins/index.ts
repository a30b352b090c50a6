export { loadTools } from "./load-tools.ts";
export { createToolRegistry, type LoadedSnapshot } from "./registry.ts";
export { ensureWorkspaceDependencies } from "./auto-install.ts";
export { installNpmPlugins } from "./npm-plugins.ts";
export { parseSpecifier } from "../sources/plugin-packages/specifier.ts";
export type { LoadEntry, LoadResult } from "./types.ts";
export { isCriticalDiagnostic } from "./plugin-hooks.ts";

export { loadTools, loadToolsIncremental, type LoadState } from "./load-tools.ts";
export { describeEntry, type EntryRef } from "./namespaces.ts";
export { createToolRegistry, type LoadedSnapshot, type ToolRegistry, type ToolRegistryOptions } from "./registry.ts";
export { ensureWorkspaceDependencies, type AutoInstallOptions, type AutoInstallResult } from "./auto-install.ts";
export { applyInstallGuard, GUARDED_SCOPE, KNOWN_GUARDED } from "./install-guard.ts";
export { registerSdkModule } from "./sdk-module.ts";
export { isCriticalDiagnostic } from "./plugin-hooks.ts";
export { readPluginPackage, validatePluginConfig, PluginManifestError, type PluginPackage } from "./manifest.ts";
export { installNpmPlugins, type NpmPluginInstallResult } from "./npm-plugins.ts";
export { parseSpecifier, type ParsedSpecifier } from "./specifier.ts";
export { normalizeId } from "../tools/plugin-id.ts";
export { isToolEnabled } from "../tools/enablement.ts";
export type {
  BundledPlugin,
  Diagnostic,
  LoadEntry,
  LoadResult,
  LoadToolsOptions,
  Origin,
  PluginFactory,
  ToolInfo,
} from "./types.ts";

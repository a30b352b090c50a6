import type { SecretSink } from "../receipts/secret-registry.ts";
import type { ToolTree } from "@openassistant/sdk";
import type { LoadEntry, SourceEntry, SourceHost, SourceKind } from "../sources/kind.ts";
import type { Diagnostic } from "../config/diagnostic.ts";
import type { LoadedConfig } from "../config/load.ts";
import type { ConfigSchema } from "../config/schema.ts";
import type { DeclarationCache } from "../codemode/declarations-cache.ts";
import type { PluginHookEntry } from "../hooks/set.ts";

export type { Diagnostic };

export type { LoadEntry, Origin, PluginFactory, ToolInfo } from "../sources/kind.ts";

export interface LoadResult {
  /** Merged tree of every loaded, enabled tool. */
  readonly tree: ToolTree;
  readonly entries: readonly LoadEntry[];
  /** The loaded plugins' hooks, in load order (`createHookSet` orders them by priority). */
  readonly hooks: readonly PluginHookEntry[];
  readonly diagnostics: readonly Diagnostic[];
  readonly declarations?: { readonly text: string; readonly hash: string };
  /** Directories whose changes should trigger a reload (tool dirs, plugin dirs outside node_modules). */
  readonly watchDirs: readonly string[];
}

/** A tool tree provided by the host itself or by a config-named source (sources/kind.ts). */
export type BundledPlugin = SourceEntry;

export interface LoadToolsOptions {
  /** Where to start looking for the project (ignored when `config` is given). */
  cwd?: string;
  env?: Readonly<Record<string, string | undefined>>;
  homeDir?: string;
  /** Already loaded config; otherwise loadConfig({ cwd, env, homeDir }) runs. */
  config?: LoadedConfig;
  /** The schema a config read here is checked with (default: the loaded config's, else core's). */
  configSchema?: ConfigSchema;
  /** Tool trees of the host's own, mounted as they are (the built-in layer: nothing can take their names). */
  bundled?: readonly BundledPlugin[];
  /** The gateway, when it offers its own tools (`tools.workspace.*`, sources/workspace-tools/); none by default. */
  host?: SourceHost;
  /** The source kinds to load (default: every registered kind, sources/kinds.ts). */
  kinds?: readonly SourceKind[];
  /** Run `bun install` in `.openassistant/` when its dependencies are missing (default true). */
  autoInstall?: boolean;
  /** Time limit for one `bun install` (default 120 s). */
  installTimeoutMs?: number;
  /** Receives what auto-install is installing (and "still installing" lines). Default: `log` at info. */
  installProgress?: (line: string) => void;
  /**
   * Time limit (ms) for importing one tool/plugin file, and separately for running one plugin
   * factory (default 10 000). A file that exceeds it is reported and skipped; the rest still loads.
   */
  loadTimeoutMs?: number;
  /**
   * List mode (`plugins list`): write nothing — no `bun install`, no package.json, no node_modules, no
   * data dirs; a tool whose packages are not installed is reported instead of imported. Default false.
   */
  readOnly?: boolean;
  /** Generate declarations of the merged tree (default true). */
  declarations?: boolean;
  /** Rendered input types kept across processes (codemode/declarations-cache.ts); none by default. */
  declarationCache?: DeclarationCache;
  /** Called when a tool source announces a new tool list (an MCP server's list_changed): reload. */
  onSourceChanged?: () => void;
  /**
   * Where credentials found while loading are registered (plugin config fields marked secret, MCP
   * OAuth tokens as they are read and refreshed); its `redact` also scrubs plugin log lines.
   */
  secrets?: SecretSink & { readonly redact: (text: string) => string };
  /** Receives plugin log lines (already prefixed with the plugin id). Default: console. */
  log?: (level: "debug" | "info" | "warn" | "error", message: string, details: unknown[]) => void;
}

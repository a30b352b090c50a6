import type { SecretSink } from "../receipts/secret-registry.ts";
import type { ApprovalMode, ToolTree } from "@openassistant/sdk";
import type { PluginFactory, SourceEntry, SourceKind } from "../sources/kind.ts";
import type { Diagnostic } from "../config/diagnostic.ts";
import type { LoadedConfig } from "../config/load.ts";
import type { DeclarationCache } from "../codemode/declarations-cache.ts";
import type { PluginHookEntry } from "../hooks/set.ts";

export type { Diagnostic };

/** Where an entry was found. Who owns a name when several want it: docs/plugins.md, "Who owns a name". */
export type Origin = "project" | "global" | "npm" | "path" | "bundled";

export type { PluginFactory };

export interface ToolInfo {
  /** Dotted path as the model calls it. */
  readonly path: string;
  readonly approval: ApprovalMode;
  readonly description: string;
  /** false when switched off by `config.tools`. */
  readonly enabled: boolean;
}

export interface LoadEntry {
  readonly id: string;
  readonly kind: "tool" | "plugin";
  /** The tool file, or the plugin's directory. */
  readonly source: string;
  readonly origin: Origin;
  readonly status: "loaded" | "disabled" | "error";
  readonly tools: readonly ToolInfo[];
  /** Manifest name/description when the plugin has one. */
  readonly name?: string;
  readonly description?: string;
  /** The config.plugins specifier that found this plugin. */
  readonly specifier?: string;
  /** Where a config source is named (`["mcp", "servers", "linear"]`, `["openapi", "pets"]`). */
  readonly configPath?: readonly string[];
  /** True when the current version failed on reload and the previous version is still served. */
  readonly stale?: boolean;
  /** The hooks the plugin registered (`definePlugin({ hooks })`): their priority and events. */
  readonly hooks?: { readonly priority: number; readonly events: readonly string[] };
  /** `config.<id>.critical` is true: the gateway does not start without this plugin. */
  readonly critical?: boolean;
}

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
  bundled?: readonly BundledPlugin[];
  /** The config-named source kinds to load (default: every registered kind, sources/kinds.ts). */
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

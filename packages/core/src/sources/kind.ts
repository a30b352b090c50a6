import type { ApprovalMode, PluginContext, ToolTree } from "@openassistant/sdk";
import type { z } from "zod";
import type { Diagnostic } from "../config/diagnostic.ts";
import type { SecretSink } from "../receipts/secret-registry.ts";
import type { PluginPackage } from "./plugin-packages/manifest.ts";

export type PluginFactory = (ctx: PluginContext) => ToolTree | Promise<ToolTree>;

/** Where an entry was found. Who owns a name when several want it: docs/plugins.md, "Who owns a name". */
export type Origin = "project" | "global" | "npm" | "path" | "bundled";

/**
 * Who owns `tools.<id>` when several entries want it, lowest first (plugins/namespaces.ts); within
 * a layer, the entry listed first (kind after kind in registration order).
 */
export const LAYER = { builtin: 0, config: 1, project: 2, global: 3 } as const;

export interface ToolInfo {
  /** Dotted path as the model calls it. */
  readonly path: string;
  readonly approval: ApprovalMode;
  readonly description: string;
  /** false when switched off by `config.tools`. */
  readonly enabled: boolean;
}

/** One namespace as the loader reports it (`plugins list`, the console, the gateway's tools). */
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

/**
 * One namespace a source provides (`tools.<id>`) as a tool tree or a factory: the gateway's own
 * tools and every config-named source (an MCP server, an OpenAPI spec) are such entries.
 */
export interface SourceEntry {
  readonly id: string;
  readonly tools: ToolTree | PluginFactory;
  readonly source?: string;
  /** Changes when what the tools come from changes (a spec file, its config): the entry is reloaded. */
  readonly fingerprint?: string;
  /**
   * Where a config source comes from (`mcp.servers.<name>`, `openapi.<name>`): when it fails, the
   * diagnostic is its own message (with the error's `hint` when it has one) at that config key.
   */
  readonly configPath?: readonly string[];
  /**
   * Tools the source listed but left out (an input schema past a limit, sources/source-budget.ts),
   * read after `tools` resolves: each becomes an error diagnostic; the source's other tools load.
   */
  readonly skippedTools?: () => readonly { readonly tool: string; readonly reason: string }[];
  /** Tools that load but with something to say (an OpenAPI operation renamed because its name was taken): each a warning. */
  readonly toolNotices?: () => readonly { readonly tool: string; readonly reason: string }[];
  /**
   * Time limit for `tools` when it is a factory, instead of the loader's factory limit: an MCP
   * server gets its configured start-up time (a first `npx -y` run downloads the package).
   */
  readonly timeoutMs?: number;
}

/** Where an entry that the loader imports from a file stands: its name, origin and layer. */
interface FileEntryBase {
  readonly id: string;
  readonly origin: Origin;
  /** Who owns a name, lowest first (`LAYER`). */
  readonly layer: number;
  readonly source: string;
}
/** A tool module (`tools/<name>.ts`): the loader imports it and reads its exports. */
export interface ToolFileEntry extends FileEntryBase {
  readonly kind: "tool";
  readonly file: string;
}
/** A plugin package (a folder with package.json): the loader checks its config, imports its entry, runs its factory. */
export interface PluginPackageEntry extends FileEntryBase {
  readonly kind: "plugin";
  readonly pkg: PluginPackage;
  readonly specifier?: string;
}
/** A file entry that could not even be read (a broken package.json, a missing path): an error entry. */
export interface BrokenEntry extends FileEntryBase {
  readonly kind: "broken";
  readonly entryKind: "tool" | "plugin";
  readonly diagnostic: Diagnostic;
  readonly specifier?: string;
}
/** An entry the loader imports from a file (workspace files, plugin packages). */
export type FileEntry = ToolFileEntry | PluginPackageEntry | BrokenEntry;

/**
 * The process that offers the gateway's own tools (`tools.workspace.*`). Present in the gateway and
 * in its listing (`plugins list`, with no `reload`: listing never writes); absent when a program
 * embeds the loader, which then gets no built-in tools.
 */
export interface SourceHost {
  /** Loads every tool again; what the new pass loaded and reported. */
  readonly reload?: () => Promise<{
    readonly entries: readonly LoadEntry[];
    readonly diagnostics: readonly Diagnostic[];
  }>;
  /** Who owns each `tools.<id>` now (the last pass's entries). */
  readonly entries?: () => readonly LoadEntry[];
}

/** What a kind may use when it turns its config section into entries (one load pass). */
export interface SourceKindContext {
  readonly projectRoot: string;
  /** The global config dir (`~/.openassistant`). */
  readonly globalDir: string;
  /** The user's home (`~/` in a plugin path). */
  readonly homeDir: string;
  /** List mode (`plugins list`): write nothing. */
  readonly readOnly: boolean;
  /** Where a kind may cache what it fetched; undefined in list mode (write nothing). */
  readonly cacheDir?: string;
  /** Where credentials found while loading are registered (OAuth tokens as they are read). */
  readonly secrets?: SecretSink;
  /** Call when the source announces a new tool list: the gateway reloads. */
  readonly onToolsChanged?: () => void;
  /** Problems found while listing entries that are no entry of their own (a tool file that is a directory). */
  readonly report: (diagnostic: Diagnostic) => void;
  /** The gateway, when it offers its own tools (`SourceHost`). */
  readonly host?: SourceHost;
  /** Tool trees the host adds as they are (an embedding program's own tools). */
  readonly builtins: readonly SourceEntry[];
}

/**
 * A kind of tool source: its config key and the schema of that key, how its section becomes
 * entries — a tree or factory (`SourceEntry`: their tools, and as diagnostics the tools left out
 * (`skippedTools`) or renamed (`toolNotices`), a failing entry's error at its `configPath`), or a
 * file the loader imports (`FileEntry`: workspace tool files, plugin packages) — and how it closes
 * at shutdown. Registered in `sources/kinds.ts`; the config schema and the loader take every
 * registered kind. Who owns a name: the lowest layer, then registration order (plugins/namespaces.ts).
 */
export interface SourceKind<K extends string = string, S extends z.ZodType = z.ZodType> {
  /** The config key (`mcp`, `openapi`) and, in `describeEntry`, the first segment of `configPath`; the kind's name when it has no `schema`. */
  readonly key: K;
  /** What a person calls one entry of this kind in a message: "MCP server", "OpenAPI spec". */
  readonly label: string;
  /** The schema of `config.<key>`; it must accept `undefined` (a default) when the key is absent. No schema: the kind has no config section. */
  readonly schema?: S;
  /** The section is read once, at start (`config.workspace`): a change to it needs a restart, not a reload. */
  readonly readOnce?: boolean;
  /** The layer of this kind's `SourceEntry`s (default `LAYER.config`); a `FileEntry` carries its own. */
  readonly layer?: number;
  /** The entries of this kind the config section names (enabled ones only), in listing order. */
  entries(
    section: z.output<S>,
    ctx: SourceKindContext,
  ): readonly (SourceEntry | FileEntry)[] | Promise<readonly (SourceEntry | FileEntry)[]>;
  /** Folders whose changes should reload the tools (a workspace's tools/ and plugins/). */
  watchDirs?(section: z.output<S>, ctx: SourceKindContext): readonly string[];
  /** Releases what the kind keeps across load passes (connections); called at gateway shutdown. */
  close?(): Promise<void>;
}

/** A kind with a config section, its key and schema types kept (so the composed config schema is typed). */
export function defineSourceKind<K extends string, S extends z.ZodType>(
  kind: SourceKind<K, S> & { readonly schema: S },
): SourceKind<K, S> & { readonly schema: S } {
  return kind;
}

/** Whether an entry is one the loader imports from a file, rather than a tree or factory. */
export function isFileEntry(entry: SourceEntry | FileEntry): entry is FileEntry {
  return "kind" in entry;
}

type WithSchema<E> = E extends { readonly schema: infer S extends z.ZodType } ? S : never;

/** The config schema's shape of the given kinds: `{ [kind.key]: kind.schema }`, in order, for the kinds that have one. */
export function sourceKindsShape<const T extends readonly SourceKind[]>(
  kinds: T,
): { [E in T[number] as WithSchema<E> extends never ? never : E["key"]]: WithSchema<E> } {
  return Object.fromEntries(kinds.flatMap((k) => (k.schema ? [[k.key, k.schema]] : []))) as never;
}

/**
 * Closes every kind that keeps something open (gateway shutdown). One failing close does not stop
 * the others; the failures are then thrown together.
 */
export async function closeSourceKinds(kinds: readonly SourceKind[]): Promise<void> {
  const settled = await Promise.allSettled(kinds.map((k) => k.close?.()));
  const failed = settled.flatMap((r) => (r.status === "rejected" ? [r.reason] : []));
  if (failed.length > 0) throw new AggregateError(failed, `${failed.length} tool source kind(s) did not close`);
}

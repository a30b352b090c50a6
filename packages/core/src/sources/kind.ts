import type { PluginContext, ToolTree } from "@openassistant/sdk";
import type { z } from "zod";
import type { SecretSink } from "../receipts/secret-registry.ts";

export type PluginFactory = (ctx: PluginContext) => ToolTree | Promise<ToolTree>;

/**
 * One namespace a source provides (`tools.<id>`), as the loader mounts it. The gateway's own tools
 * and every config-named source (an MCP server, an OpenAPI spec) are entries.
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

/** What a kind may use when it turns its config section into entries (one load pass). */
export interface SourceKindContext {
  readonly projectRoot: string;
  /** The global config dir (`~/.openassistant`). */
  readonly globalDir: string;
  /** Where a kind may cache what it fetched; undefined in list mode (write nothing). */
  readonly cacheDir?: string;
  /** Where credentials found while loading are registered (OAuth tokens as they are read). */
  readonly secrets?: SecretSink;
  /** Call when the source announces a new tool list: the gateway reloads. */
  readonly onToolsChanged?: () => void;
}

/**
 * A kind of tool source named by the config (`config.<key>`): its schema, how its section becomes
 * entries — their tools, and as diagnostics the tools left out (`skippedTools`) or renamed
 * (`toolNotices`), a failing entry's error at its `configPath` — and how it closes at shutdown.
 * Registered in `sources/kinds.ts`; the config schema and the loader take every registered kind.
 * Who owns a name: a kind's entries come after config.plugins and before workspace files, in
 * registration order (plugins/namespaces.ts).
 */
export interface SourceKind<K extends string = string, S extends z.ZodType = z.ZodType> {
  /** The config key (`mcp`, `openapi`) and, in `describeEntry`, the first segment of `configPath`. */
  readonly key: K;
  /** What a person calls one entry of this kind in a message: "MCP server", "OpenAPI spec". */
  readonly label: string;
  /** The schema of `config.<key>`; it must accept `undefined` (a default) when the key is absent. */
  readonly schema: S;
  /** The entries of this kind the config section names (enabled ones only). */
  entries(section: z.output<S>, ctx: SourceKindContext): SourceEntry[] | Promise<SourceEntry[]>;
  /** Releases what the kind keeps across load passes (connections); called at gateway shutdown. */
  close?(): Promise<void>;
}

/** A kind, with its key and schema types kept (so the composed config schema is typed). */
export function defineSourceKind<K extends string, S extends z.ZodType>(kind: SourceKind<K, S>): SourceKind<K, S> {
  return kind;
}

/** The config schema's shape of the given kinds: `{ [kind.key]: kind.schema }`, in order. */
export function sourceKindsShape<const T extends readonly SourceKind[]>(
  kinds: T,
): { [E in T[number] as E["key"]]: E["schema"] } {
  return Object.fromEntries(kinds.map((k) => [k.key, k.schema])) as { [E in T[number] as E["key"]]: E["schema"] };
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

import type { Diagnostic } from "../config/diagnostic.ts";
import {
  type BrokenEntry,
  type FileEntry,
  isFileEntry,
  LAYER,
  type PluginPackageEntry,
  type SourceEntry,
  type SourceKind,
  type SourceKindContext,
  type ToolFileEntry,
} from "../sources/kind.ts";

export type ToolCandidate = ToolFileEntry;
export type PluginCandidate = PluginPackageEntry;
/** A plugin whose package could not even be read; reported as an error entry. */
export type BrokenCandidate = BrokenEntry;
/** A tree or factory a kind provides (a config-named source, a built-in). */
export interface BundledCandidate {
  readonly kind: "bundled";
  readonly id: string;
  readonly origin: "bundled";
  /** Who owns a name, lowest first (sources/kind.ts `LAYER`). */
  readonly layer: number;
  readonly source: string;
  readonly bundled: SourceEntry;
}
/** One entry of a kind, as the loader claims its name and loads it. */
export type Candidate = FileEntry | BundledCandidate;

/**
 * Every candidate of every kind, kind after kind in registration order (sources/kinds.ts), each
 * kind's entries in its own order: as `plugins list` shows them. Who owns a name is decided by
 * `layer` (namespaces.ts; docs/plugins.md, "Who owns a name"), then by this order.
 */
export async function discover(
  kinds: readonly SourceKind[],
  config: object,
  ctx: Omit<SourceKindContext, "report">,
  diagnostics: Diagnostic[],
): Promise<Candidate[]> {
  const sections = config as Readonly<Record<string, unknown>>;
  const kindCtx: SourceKindContext = { ...ctx, report: (d) => diagnostics.push(d) };
  const out: Candidate[] = [];
  for (const kind of kinds) {
    const section = kind.schema ? sections[kind.key] : undefined;
    for (const e of await kind.entries(section, kindCtx)) out.push(isFileEntry(e) ? e : bundledCandidate(e, kind));
  }
  return out;
}

/** Folders whose changes should reload the tools, as the kinds name them. */
export function kindWatchDirs(
  kinds: readonly SourceKind[],
  config: object,
  ctx: Omit<SourceKindContext, "report">,
): string[] {
  const sections = config as Readonly<Record<string, unknown>>;
  const kindCtx: SourceKindContext = { ...ctx, report: () => {} };
  return kinds.flatMap((k) => k.watchDirs?.(k.schema ? sections[k.key] : undefined, kindCtx) ?? []);
}

function bundledCandidate(b: SourceEntry, kind: SourceKind): BundledCandidate {
  return {
    kind: "bundled",
    id: b.id,
    origin: "bundled",
    layer: kind.layer ?? LAYER.config,
    source: b.source ?? `bundled:${b.id}`,
    bundled: b,
  };
}

import type { ToolTree } from "@openassistant/sdk";
import {
  type DeclarationCache,
  type DeclarationsForCode,
  declarationsReachedBy,
  generateDeclarations,
  type GeneratedDeclarations,
  namespaceListing,
  WHOLE_DECLARATIONS_TOOLS,
  withDiscovery,
} from "@openassistant/core/codemode";
import type { Diagnostic } from "@openassistant/core/config";
import type { HookSet } from "@openassistant/core/hooks";
import type { LoadEntry } from "@openassistant/core/plugins";
import { flattenToolTree } from "@openassistant/core/tools";
import { declarationWarning } from "./diagnostics.ts";

/** One consistent view of the tools: the tree runs use and the declarations the model/checker see. */
export interface ToolSnapshot {
  readonly tree: ToolTree;
  readonly declarations: GeneratedDeclarations;
  /**
   * Set when the tools are too many to declare whole (more than `WHOLE_DECLARATIONS_TOOLS`):
   * `declarations` is then the namespace listing, and a snippet is checked against the
   * declarations of the tools it reaches.
   */
  readonly declarationsFor?: (code: string) => DeclarationsForCode;
  /** Problems found while loading tools (level, file, line, message, fix); only the edges format them. */
  readonly diagnostics: readonly Diagnostic[];
  /** How many diagnostics are errors (a tool or plugin that did not load). */
  readonly errors: number;
  readonly count: number;
  /** The tool files and plugins the registry found (absent for a fixed tree): what `plugins list` shows. */
  readonly entries?: readonly LoadEntry[];
  /** The loaded plugins' hooks (absent for a fixed tree): every run's calls pass them. */
  readonly hooks?: HookSet;
}

/** Where the gateway's tools come from: the workspace/plugin registry, or a fixed tree. */
export interface ToolSource {
  current(): ToolSnapshot;
  /** Re-reads tools; running runs keep the snapshot they started with. */
  reload(): Promise<ToolSnapshot>;
  subscribe(listener: (snapshot: ToolSnapshot) => void): () => void;
  close(): void;
}

export function snapshotOf(
  tree: ToolTree,
  diagnostics: readonly Diagnostic[] = [],
  cache?: DeclarationCache,
): ToolSnapshot {
  const perSnippet = declaredPerSnippet(tree, cache);
  if (perSnippet)
    return {
      ...perSnippet,
      diagnostics,
      errors: diagnostics.filter((d) => d.level === "error").length,
      count: flattenToolTree(perSnippet.tree).length,
    };
  const declarations = generateDeclarations(tree, { cache });
  return {
    tree,
    declarations,
    diagnostics: [...diagnostics, ...declarations.warnings.map(declarationWarning)],
    errors: diagnostics.filter((d) => d.level === "error").length,
    count: flattenToolTree(tree).length,
  };
}

/**
 * For a tree of more than `WHOLE_DECLARATIONS_TOOLS` tools (Microsoft Graph's spec has 11,422):
 * the tree with discovery, the namespace listing as its declarations, and the declarations each
 * snippet reaches. Undefined for a smaller tree, declared whole.
 */
export function declaredPerSnippet(
  tree: ToolTree,
  cache?: DeclarationCache,
): Pick<ToolSnapshot, "tree" | "declarations" | "declarationsFor"> | undefined {
  if (flattenToolTree(tree).length <= WHOLE_DECLARATIONS_TOOLS) return undefined;
  const withTools = withDiscovery(tree);
  const text = namespaceListing(tree);
  return {
    tree: withTools,
    declarations: { text, hash: new Bun.CryptoHasher("sha256").update(text).digest("hex"), warnings: [] },
    declarationsFor: (code) => declarationsReachedBy(withTools, code, { cache }),
  };
}

/** A fixed tree (tests, embedding). */
export function staticToolSource(tree: ToolTree, cache?: DeclarationCache): ToolSource {
  const snapshot = snapshotOf(tree, [], cache);
  return {
    current: () => snapshot,
    reload: async () => snapshot,
    subscribe: () => () => {},
    close() {},
  };
}

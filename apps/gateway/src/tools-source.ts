import type { ToolTree } from "@openassistant/sdk";
import { generateDeclarations, type GeneratedDeclarations } from "@openassistant/core/codemode/declarations.ts";
import type { LoadEntry } from "@openassistant/core/plugins/types.ts";
import { flattenToolTree } from "@openassistant/core/tools/flatten.ts";

/** One consistent view of the tools: the tree runs use and the declarations the model/checker see. */
export interface ToolSnapshot {
  readonly tree: ToolTree;
  readonly declarations: GeneratedDeclarations;
  /** Problems found while loading tools (file, tool, what to do), one line each. */
  readonly diagnostics: readonly string[];
  /** How many diagnostics are errors (a tool or plugin that did not load). */
  readonly errors: number;
  readonly count: number;
  /** The tool files and plugins the registry found (absent for a fixed tree): what `plugins list` shows. */
  readonly entries?: readonly LoadEntry[];
}

/** Where the gateway's tools come from: the workspace/plugin registry, or a fixed tree. */
export interface ToolSource {
  current(): ToolSnapshot;
  /** Re-reads tools; running runs keep the snapshot they started with. */
  reload(): Promise<ToolSnapshot>;
  subscribe(listener: (snapshot: ToolSnapshot) => void): () => void;
  close(): void;
}

export function snapshotOf(tree: ToolTree, diagnostics: readonly string[] = []): ToolSnapshot {
  const declarations = generateDeclarations(tree);
  return {
    tree,
    declarations,
    diagnostics: [...diagnostics, ...declarations.warnings],
    errors: diagnostics.length,
    count: flattenToolTree(tree).length,
  };
}

/** A fixed tree (tests, embedding). */
export function staticToolSource(tree: ToolTree): ToolSource {
  const snapshot = snapshotOf(tree);
  return {
    current: () => snapshot,
    reload: async () => snapshot,
    subscribe: () => () => {},
    close() {},
  };
}

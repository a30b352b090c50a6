import type { ToolTree } from "@openassistant/sdk";

/**
 * A namespace of the gateway's own tools (`tools.schedules.*`, `tools.abilities.*`): part of the
 * tool tree before the stores it needs are open (the tree is loaded first); the assembly binds it.
 */
export interface LateBoundTools<D> {
  bind(deps: D): void;
  /** `{ <name>: { … } }`, to merge into a fixed tree. */
  readonly tree: ToolTree;
  /** The namespace's own tools (a bundled entry's tools). */
  readonly namespace: ToolTree;
}

/** `make` builds the namespace's tools; they read their dependencies through `deps()`, which throws until bound. */
export function lateBoundTools<D>(name: string, make: (deps: () => D) => ToolTree): LateBoundTools<D> {
  let bound: D | undefined;
  const deps = () => {
    if (bound === undefined) throw new Error(`${name} are not available: the gateway's stores are not open yet`);
    return bound;
  };
  const namespace = make(deps);
  return { bind: (d) => void (bound = d), tree: { [name]: namespace }, namespace };
}

/** A bundled source entry of the gateway's own tools. */
export interface BuiltInToolsEntry {
  readonly id: string;
  readonly tools: ToolTree;
  readonly source: string;
}

/** A late-bound namespace as a bundled source entry (the gateway, and `plugins list` to count the same). */
export function builtInToolsEntry<D>(name: string, binding: LateBoundTools<D>): BuiltInToolsEntry {
  return { id: name, tools: binding.namespace, source: `built-in (${name})` };
}

import { isToolDefinition, type ToolDefinition, type ToolTree } from "@openassistant/sdk";
import { isToolSegment, RESERVED_TOOL_NAMES } from "./names.ts";

export interface FlatTool {
  /** Dotted path as the model calls it: `calendar.events.create`. */
  readonly path: string;
  readonly definition: ToolDefinition;
}

export class ToolTreeError extends Error {
  override name = "ToolTreeError";
}

/** Walks a ToolTree into tools sorted by path; rejects names the model could not call. */
export function flattenToolTree(tree: ToolTree): FlatTool[] {
  const out: FlatTool[] = [];
  const walk = (node: ToolTree, prefix: string[]) => {
    for (const name of Object.keys(node)) {
      const path = [...prefix, name];
      if (!isToolSegment(name))
        throw new ToolTreeError(
          `tool name "${path.join(".")}" is not a valid identifier; use letters, digits and _ only`,
        );
      if (Object.hasOwn(RESERVED_TOOL_NAMES, name))
        throw new ToolTreeError(
          `tool name "${path.join(".")}" cannot be used: ${RESERVED_TOOL_NAMES[name]}; rename it (e.g. "${name === "then" ? "thenDo" : "proto"}")`,
        );
      const child = node[name];
      if (isToolDefinition(child)) out.push({ path: path.join("."), definition: child });
      else if (typeof child === "object" && child !== null) walk(child as ToolTree, path);
      else throw new ToolTreeError(`"${path.join(".")}" is neither a tool (defineTool) nor a group of tools`);
    }
  };
  walk(tree, []);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Index of a tree by dotted path. */
export function indexToolTree(tree: ToolTree): Map<string, ToolDefinition> {
  return new Map(flattenToolTree(tree).map((t) => [t.path, t.definition]));
}

/**
 * The tree without the tools `keep` refuses (groups left empty disappear), or undefined when
 * nothing is kept. `root` prefixes every path (a plugin's id).
 */
export function filterToolTree(
  tree: ToolTree | ToolDefinition,
  root: string,
  keep: (path: string, tool: ToolDefinition) => boolean,
): ToolTree | ToolDefinition | undefined {
  if (isToolDefinition(tree)) return keep(root, tree) ? tree : undefined;
  const out: Record<string, ToolTree | ToolDefinition> = {};
  for (const [k, v] of Object.entries(tree)) {
    const child = filterToolTree(v, root ? `${root}.${k}` : k, keep);
    if (child !== undefined) out[k] = child;
  }
  return Object.keys(out).length ? out : undefined;
}

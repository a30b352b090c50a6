import { isToolDefinition, type ToolDefinition, type ToolTree } from "@openassistant/sdk";

export interface FlatTool {
  /** Dotted path as the model calls it: `calendar.events.create`. */
  readonly path: string;
  readonly definition: ToolDefinition;
}

const SEGMENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Names that are valid identifiers but break JavaScript semantics when they name a tool or group:
 * a `then` makes its parent a thenable (`await tools.ns` or `return tools.ns` calls it and never
 * settles); `__proto__` sets a prototype instead of a property in object literals and on plain
 * objects.
 */
export const RESERVED_TOOL_NAMES: Readonly<Record<string, string>> = {
  then: "it would make its parent a thenable, so awaiting or returning that group calls the tool",
  // Computed: a literal `__proto__:` key would set this object's prototype, the very trap it names.
  ["__proto__"]: "it sets an object's prototype instead of a property in JavaScript",
};

export class ToolTreeError extends Error {
  override name = "ToolTreeError";
}

/** Walks a ToolTree into tools sorted by path; rejects names the model could not call. */
export function flattenToolTree(tree: ToolTree): FlatTool[] {
  const out: FlatTool[] = [];
  const walk = (node: ToolTree, prefix: string[]) => {
    for (const name of Object.keys(node)) {
      const path = [...prefix, name];
      if (!SEGMENT.test(name))
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

import { isToolDefinition } from "@openassistant/sdk";

/** Deeper nesting than this is almost certainly a mistake (or a data structure, not a tool tree). */
export const MAX_TREE_DEPTH = 16;
/** Objects visited at most; a tree that shares sub-objects could otherwise expand exponentially. */
const MAX_NODES = 50_000;

/**
 * Checks that a tool tree (a factory's result or an exported object) is finite: no object contains
 * itself (directly or through its children), nesting stays within MAX_TREE_DEPTH and it is not
 * huge. Returns a message naming the offending path, or undefined. Must run before anything
 * recurses into the tree (flattening, declarations), which would otherwise overflow the stack.
 */
export function checkTreeShape(root: unknown, rootName: string): string | undefined {
  const ancestors: unknown[] = [];
  const names: string[] = [];
  let visited = 0;
  const walk = (node: unknown, name: string): string | undefined => {
    if (typeof node !== "object" || node === null || isToolDefinition(node)) return undefined;
    const back = ancestors.indexOf(node);
    if (back >= 0)
      return `"${[...names, name].join(".")}" refers back to "${names.slice(0, back + 1).join(".")}": the tool tree contains itself (a cycle)`;
    if (ancestors.length >= MAX_TREE_DEPTH)
      return `"${[...names, name].join(".")}" is nested deeper than ${MAX_TREE_DEPTH} levels`;
    if (++visited > MAX_NODES) return `the tool tree has more than ${MAX_NODES} groups`;
    ancestors.push(node);
    names.push(name);
    try {
      for (const key of Object.keys(node)) {
        const problem = walk((node as Record<string, unknown>)[key], key);
        if (problem) return problem;
      }
      return undefined;
    } finally {
      ancestors.pop();
      names.pop();
    }
  };
  return walk(root, rootName);
}

import { defineTool, type ToolDefinition, type ToolTree, z } from "@openassistant/sdk";
import { type FlatTool, flattenToolTree } from "../tools/flatten.ts";
import { declareTool } from "./declarations.ts";
import { buildToolSearchIndex, type ToolSearchIndex } from "./tool-search.ts";

/**
 * Discovery for large tool sets. When every declaration does not fit the prompt budget, the prompt
 * lists namespaces and the model finds tools from inside its code with `tools.$search(query)` and
 * `tools.$describe(path)`. The typecheck still sees every declaration, so a wrong call is caught
 * before it runs.
 */

/** Rough tokens of a text (4 characters a token), the unit prompt budgets are set in. */
export function approxTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** `tools.$search` and `tools.$describe` over the given tree (read at call time, so reloads count). */
export function discoveryTools(currentTree: () => ToolTree): ToolTree {
  let indexed: { tree: ToolTree; tools: FlatTool[]; search?: ToolSearchIndex } | undefined;
  const current = () => {
    const tree = currentTree();
    if (indexed?.tree !== tree) indexed = { tree, tools: flattenToolTree(tree) };
    return indexed;
  };
  const index = () => current().tools;
  // Built on the first search of a tree, not on $describe.
  const ranking = () => {
    const c = current();
    c.search ??= buildToolSearchIndex(c.tools);
    return c.search;
  };
  return {
    $search: defineTool({
      description: "Find tools by what they do; returns the best matches with their TypeScript signatures",
      approval: "auto",
      readOnly: true,
      args: z.object({
        query: z.string().min(1).max(500).describe('What you need, e.g. "list open issues"'),
        limit: z.number().int().min(1).max(50).default(10),
      }),
      run: async ({ query, limit }) =>
        ranking()
          .search(query, limit)
          .map((t) => ({
            path: `tools.${t.path}`,
            approval: t.definition.approval,
            declaration: declareTool(t.path, t.definition),
          })),
    }),
    $describe: defineTool({
      description: "The full TypeScript declaration of one tool (or of every tool under a namespace)",
      approval: "auto",
      readOnly: true,
      args: z.object({
        path: z.string().min(1).max(300).describe('e.g. "github.issues.listForRepo" or "tools.github.issues"'),
      }),
      run: async ({ path }) => {
        const clean = path.replace(/^tools\./, "");
        const matches = index().filter((t) => t.path === clean || t.path.startsWith(`${clean}.`));
        if (matches.length === 0) throw new Error(`no tool or namespace "${clean}"; use tools.$search to find one`);
        return (
          matches
            .slice(0, 100)
            .map((t) => `// tools.${t.path}\n${declareTool(t.path, t.definition)}`)
            .join("\n\n") + (matches.length > 100 ? `\n// … ${matches.length - 100} more under ${clean}` : "")
        );
      },
    }),
  };
}

/**
 * What the prompt says about the tools: every declaration when they fit `budgetTokens`, else one
 * line per namespace (tool count and a sample of what it does) and how to search.
 */
export function promptToolListing(
  tree: ToolTree,
  declarations: string,
  budgetTokens: number,
): { readonly mode: "full" | "discovery"; readonly text: string } {
  if (approxTokens(declarations) <= budgetTokens) return { mode: "full", text: declarations };
  return { mode: "discovery", text: namespaceListing(tree) };
}

/** One line per namespace (tool count and a sample of what it does) and how to search. */
export function namespaceListing(tree: ToolTree): string {
  const groups = new Map<string, ToolDefinition[]>();
  for (const t of flattenToolTree(tree)) {
    const ns = t.path.split(".")[0]!;
    if (ns.startsWith("$")) continue;
    const group = groups.get(ns);
    if (group) group.push(t.definition);
    else groups.set(ns, [t.definition]);
  }
  const lines = [
    "// The tools are too many to list here. Find what you need from inside your code:",
    '//   const hits = await tools.$search({ query: "create an issue" });  // [{ path, approval, declaration }]',
    '//   const decl = await tools.$describe({ path: "github.issues" });   // full declarations of a namespace',
    "// Then call the tool in a later execute (your code is typechecked against every declaration).",
    "// Namespaces:",
  ];
  for (const [ns, defs] of [...groups.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const sample = defs
      .slice(0, 3)
      .map((d) => d.description.split("\n")[0]!.slice(0, 60))
      .join("; ");
    lines.push(
      `//   tools.${ns} (${defs.length} tool${defs.length === 1 ? "" : "s"}): ${sample}${defs.length > 3 ? "; …" : ""}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** `tree` plus `tools.$search` / `tools.$describe` over it. */
export function withDiscovery(tree: ToolTree): ToolTree {
  return { ...tree, ...discoveryTools(() => tree) };
}

import { isToolDefinition, type ToolTree } from "@openassistant/sdk";
import { flattenToolTree } from "../tools/flatten.ts";
import { ownValue } from "../tools/own-keys.ts";
import { type DeclarationOptions, type GeneratedDeclarations, generateDeclarations } from "./declarations.ts";
import { failWith, OA_DIAGNOSTIC, type TypecheckResult } from "./typecheck-diagnostics.ts";
import { WHOLE_DECLARATIONS_TOOLS } from "./whole-declarations.ts";

export { WHOLE_DECLARATIONS_TOOLS };

/**
 * Declarations of only the tools a snippet can reach. Microsoft Graph's 11,422 operations render
 * to 36 MB of declarations (seconds, and more than a gigabyte, to render and to typecheck); a
 * snippet names the few it calls as `tools.<ns>.<...>` chains. Every tool under a chain is kept,
 * so a chain that stops at a namespace (`const mail = tools.graph.users`) keeps that namespace;
 * `tools` used any other way (`tools[name]`, passed along) keeps the whole tree. A chain that
 * names nothing keeps nothing, and the typecheck says the property does not exist, as it would
 * against every declaration.
 */
export function reachableToolTree(tree: ToolTree, code: string): ToolTree {
  const chains: string[][] = [];
  // `tools` as a whole word, not a property (`x.tools`) or part of a name (`myTools`).
  for (const m of code.matchAll(/(?<![\w$.])tools\b((?:\s*\??\.\s*[A-Za-z_$][\w$]*)*)/g)) {
    const segments = m[1]!.split(/\s*\??\.\s*/).filter(Boolean);
    if (segments.length === 0) return tree;
    chains.push(segments);
  }
  return prune(tree, chains);
}

/** The declarations a snippet is checked against, or why it is not checked. */
export type DeclarationsForCode =
  | ({ readonly ok: true } & GeneratedDeclarations)
  | (TypecheckResult & { readonly ok: false });

/**
 * `generateDeclarations` of `reachableToolTree(tree, code)` (renders are cached per tool, so
 * repeats are cheap), or, when the code reaches more than `WHOLE_DECLARATIONS_TOOLS` tools, a
 * failed check that says which chain to narrow: rendering them all is what this avoids.
 */
export function declarationsReachedBy(
  tree: ToolTree,
  code: string,
  options: DeclarationOptions = {},
): DeclarationsForCode {
  const reached = reachableToolTree(tree, code);
  const count = flattenToolTree(reached).length;
  if (count > WHOLE_DECLARATIONS_TOOLS)
    return failWith(
      OA_DIAGNOSTIC.reachesTooMany,
      `this code reaches ${count} tools (through ${reached === tree ? "`tools` as a whole" : `tools.${Object.keys(reached).join(", tools.")}`}), more than ${WHOLE_DECLARATIONS_TOOLS} can be typechecked at once: call each tool by its full path (tools.<namespace>.<...>.<tool>), found with tools.$search`,
    ) as TypecheckResult & { ok: false };
  return { ok: true, ...generateDeclarations(reached, options) };
}

function prune(node: ToolTree, chains: readonly string[][]): ToolTree {
  const out: Record<string, unknown> = {};
  const heads = new Set(chains.map((c) => c[0]!));
  for (const key of heads) {
    const child = ownValue(node as Record<string, unknown>, key);
    if (child === undefined) continue;
    const rest = chains.filter((c) => c[0] === key).map((c) => c.slice(1));
    out[key] = isToolDefinition(child) || rest.some((c) => c.length === 0) ? child : prune(child as ToolTree, rest);
  }
  return out as ToolTree;
}

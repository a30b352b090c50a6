import { isPluginDefinition, isToolDefinition, type PluginDefinition, type ToolTree } from "@openassistant/sdk";
import { defineOwn } from "../tools/own-keys.ts";
import type { PluginFactory } from "./types.ts";

export type ModuleShape =
  | { readonly kind: "tree"; readonly tree: ToolTree; readonly warnings: string[] }
  | {
      readonly kind: "factory";
      readonly factory: PluginFactory;
      readonly warnings: string[];
      /** From `definePlugin({ config })`: the plugin's config is validated against it first. */
      readonly configSchema?: PluginDefinition["config"];
      /** From `definePlugin({ hooks })`: built from the same context as the tools, after them. */
      readonly hooks?: PluginDefinition["hooks"];
    }
  | { readonly kind: "empty"; readonly exportNames: string[] };

/**
 * A plain object whose leaves are all tool definitions (at least one). An object that contains one
 * of its ancestors counts as a tree here, so the loader can report the cycle (checkTreeShape)
 * instead of "exports no tool" or a stack overflow.
 */
function isToolTree(value: unknown, ancestors: readonly unknown[] = []): value is ToolTree {
  if (typeof value !== "object" || value === null || Array.isArray(value) || isToolDefinition(value)) return false;
  if (ancestors.includes(value)) return true;
  const values = Object.values(value);
  const inner = [...ancestors, value];
  return values.length > 0 && values.every((v) => isToolDefinition(v) || isToolTree(v, inner));
}

/**
 * Standalone tool file: default export (tool, tree or factory) mounts at the file id; named exports
 * that are tools or trees mount at `id.<export>`. A file with both a default tool and named tools
 * keeps the named ones (a path cannot be both a tool and a namespace) and warns.
 */
export function interpretToolModule(mod: Record<string, unknown>): ModuleShape {
  const warnings: string[] = [];
  const named: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(mod))
    if (k !== "default" && (isToolDefinition(v) || isToolTree(v))) defineOwn(named, k, v);
  const def = mod.default;
  const namedCount = Object.keys(named).length;
  if (isPluginDefinition(def)) {
    if (namedCount)
      warnings.push(
        `named tool exports (${Object.keys(named).join(", ")}) are ignored because the default export is a plugin (definePlugin)`,
      );
    return fromPluginDefinition(def, warnings);
  }
  if (typeof def === "function" && !isToolDefinition(def)) {
    if (namedCount)
      warnings.push(
        `named tool exports (${Object.keys(named).join(", ")}) are ignored because the default export is a plugin factory`,
      );
    return { kind: "factory", factory: def as PluginFactory, warnings };
  }
  if (isToolDefinition(def)) {
    if (!namedCount) return { kind: "tree", tree: def as unknown as ToolTree, warnings };
    warnings.push(
      `the default export is ignored because the file also has named tool exports (${Object.keys(named).join(", ")}); a path cannot be both a tool and a namespace`,
    );
  } else if (isToolTree(def)) {
    // Named exports win over keys of a default tree; copied key by key so `__proto__` stays a key
    // (and is then rejected by name) instead of replacing the prototype.
    for (const [k, v] of Object.entries(def)) if (!Object.hasOwn(named, k)) defineOwn(named, k, v);
  }
  if (Object.keys(named).length) return { kind: "tree", tree: named as ToolTree, warnings };
  return { kind: "empty", exportNames: Object.keys(mod) };
}

/** Plugin entry: default export (factory or tree), else a named `tools` export. */
export function interpretPluginModule(mod: Record<string, unknown>): ModuleShape {
  for (const candidate of [mod.default, mod.tools]) {
    if (isPluginDefinition(candidate)) return fromPluginDefinition(candidate, []);
    if (typeof candidate === "function" && !isToolDefinition(candidate))
      return { kind: "factory", factory: candidate as PluginFactory, warnings: [] };
    if (isToolTree(candidate)) return { kind: "tree", tree: candidate, warnings: [] };
  }
  return { kind: "empty", exportNames: Object.keys(mod) };
}

function fromPluginDefinition(def: PluginDefinition, warnings: string[]): ModuleShape {
  return {
    kind: "factory",
    factory: def.tools as PluginFactory,
    warnings,
    ...(def.config ? { configSchema: def.config } : {}),
    ...(def.hooks ? { hooks: def.hooks } : {}),
  };
}

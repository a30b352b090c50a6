import { builtinsKind } from "./builtins/kind.ts";
import { mcpKind } from "./mcp/kind.ts";
import { openApiKind } from "./openapi/kind.ts";
import { pluginPackagesKind } from "./plugin-packages/kind.ts";
import { workspaceFilesKind } from "./workspace-files/kind.ts";
import { workspaceToolsKind } from "./workspace-tools/kind.ts";

/**
 * Every kind of tool source, one line each. The config schema gets `config.<key>` from each kind
 * that has a schema, and the loader asks each kind for its entries, in this order: the order
 * `plugins list` shows them, and who owns a name among entries of one layer (sources/kind.ts
 * `LAYER`; plugins/namespaces.ts). A new kind: a folder under `sources/` with its `kind.ts`, and
 * one line here.
 */
export const SOURCE_KINDS = [
  workspaceFilesKind,
  pluginPackagesKind,
  openApiKind,
  mcpKind,
  workspaceToolsKind,
  builtinsKind,
] as const;

import { mcpKind } from "./mcp/kind.ts";
import { openApiKind } from "./openapi/kind.ts";

/**
 * Every config-named kind of tool source, one line each. The config schema gets `config.<key>`
 * from here and the loader asks each kind for its entries, in this order (which is also who owns a
 * name among them: plugins/namespaces.ts). A new kind: a folder under `sources/` with its `kind.ts`,
 * and one line here.
 */
export const SOURCE_KINDS = [openApiKind, mcpKind] as const;

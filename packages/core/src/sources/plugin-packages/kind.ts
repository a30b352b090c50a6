import { join } from "node:path";
import { workspaceDir } from "../../config/paths.ts";
import { defineSourceKind, type SourceKindContext } from "../kind.ts";
import { pluginsConfigSchema } from "./config-schema.ts";
import { specifierEntry, type PluginLookup } from "./entries.ts";

/** Where plugins are looked up in a load pass; list mode reads compiled validators but writes none. */
export function pluginLookup(ctx: SourceKindContext): PluginLookup {
  const projectWorkspace = workspaceDir(ctx.projectRoot);
  return {
    projectWorkspace,
    projectRoot: ctx.projectRoot,
    homeDir: ctx.homeDir,
    validatorCache: { dir: join(projectWorkspace, "data", "cache"), write: !ctx.readOnly },
  };
}

/** `config.plugins`: each specifier's plugin package (an installed npm package or a folder path) at `tools.<its id>`. */
export const pluginPackagesKind = defineSourceKind({
  key: "plugins",
  label: "plugin",
  schema: pluginsConfigSchema,
  entries(specifiers, ctx) {
    const lookup = pluginLookup(ctx);
    return specifiers.map((spec) => specifierEntry(spec, lookup));
  },
});

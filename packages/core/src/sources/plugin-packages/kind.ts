import { defineSourceKind } from "../kind.ts";
import { pluginsConfigSchema } from "./config-schema.ts";
import { pluginLookup, specifierEntry } from "./entries.ts";

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

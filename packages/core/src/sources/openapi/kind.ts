import { defineSourceKind, type SourceEntry } from "../kind.ts";
import { openApiConfigSchema } from "./config-schema.ts";

/** `config.openapi.<name>`: a spec's operations at `tools.<name>.<operation>`. */
export const openApiKind = defineSourceKind({
  key: "openapi",
  label: "OpenAPI spec",
  schema: openApiConfigSchema,
  async entries(section, ctx): Promise<SourceEntry[]> {
    if (Object.keys(section).length === 0) return [];
    const { openApiBundles } = await import("./bundle.ts");
    return openApiBundles(section, {
      projectRoot: ctx.projectRoot,
      ...(ctx.cacheDir ? { cacheDir: ctx.cacheDir } : {}),
    });
  },
});

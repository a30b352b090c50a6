import { defineSourceKind, type SourceEntry } from "../kind.ts";
import { mcpConfigSchema } from "./config-schema.ts";

/** `config.mcp.servers.<name>`: each server's tools at `tools.<name>`. The SDK loads only when a server is named. */
export const mcpKind = defineSourceKind({
  key: "mcp",
  label: "MCP server",
  schema: mcpConfigSchema,
  async entries(section, ctx): Promise<SourceEntry[]> {
    if (Object.keys(section.servers).length === 0) return [];
    const { mcpBundles } = await import("./bundle.ts");
    return mcpBundles(section.servers, {
      configDir: ctx.globalDir,
      ...(ctx.secrets ? { secrets: ctx.secrets } : {}),
      ...(ctx.onToolsChanged ? { onToolsChanged: ctx.onToolsChanged } : {}),
    });
  },
  async close(): Promise<void> {
    const { closeMcpConnections } = await import("./bundle.ts");
    await closeMcpConnections();
  },
});

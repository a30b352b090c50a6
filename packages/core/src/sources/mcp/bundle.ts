import type { OpenAssistantConfig } from "../../config/schema.ts";
import type { SourceEntry as BundledPlugin } from "../kind.ts";
import type { SecretSink } from "../../receipts/secret-registry.ts";
import { DEFAULT_MCP_STARTUP_SECONDS, McpConnection, type McpServerConfig } from "./connection.ts";
import { SourceBudget } from "../source-budget.ts";
import { mcpToolTree } from "./tools.ts";

/** Seconds a connected server gets to list its tools (the SDK's own request limit is 60). */
const LISTING_SECONDS = 90;

/** Connections live as long as the process: a reload reuses them; a changed config opens a new one. */
const connections = new Map<string, McpConnection>();

function connectionFor(name: string, config: McpServerConfig, configDir: string | undefined): McpConnection {
  const key = `${name}|${configDir}|${JSON.stringify(config)}`;
  let c = connections.get(key);
  if (!c) connections.set(key, (c = new McpConnection(name, config, configDir)));
  return c;
}

/** `config.mcp.servers.<name>` as tool sources mounted at `tools.<name>`. */
export function mcpBundles(
  servers: OpenAssistantConfig["mcp"]["servers"],
  o: { onToolsChanged?: () => void; configDir?: string; secrets?: SecretSink } = {},
): BundledPlugin[] {
  return Object.entries(servers ?? {})
    .filter(([, s]) => s.enabled)
    .map(([name, s]) => {
      const { enabled: _enabled, ...config } = s;
      const connection = connectionFor(name, config as McpServerConfig, o.configDir);
      if (o.onToolsChanged) connection.onToolsChanged(o.onToolsChanged);
      if (o.secrets) connection.addSecretSink(o.secrets);
      let budget = new SourceBudget();
      return {
        id: name,
        configPath: ["mcp", "servers", name],
        source: "url" in config ? config.url : `${config.command} ${(config.args ?? []).join(" ")}`.trim(),
        // Re-listed on every load: a server's tools can change without its config changing.
        fingerprint: `${JSON.stringify(config)}|${Date.now()}`,
        // The server's own start-up limit (connection.ts) says what to change; this only bounds the listing after it.
        timeoutMs: ((config.startupTimeoutSeconds ?? DEFAULT_MCP_STARTUP_SECONDS) + LISTING_SECONDS) * 1000,
        tools: async () => {
          budget = new SourceBudget();
          const tools = await connection.listTools();
          return mcpToolTree(connection, tools, budget, await connection.capabilities());
        },
        skippedTools: () => budget.skipped,
      };
    });
}

/** Closes every MCP connection (gateway shutdown). */
export async function closeMcpConnections(): Promise<void> {
  const all = [...connections.values()];
  connections.clear();
  await Promise.all(all.map((c) => c.close()));
}

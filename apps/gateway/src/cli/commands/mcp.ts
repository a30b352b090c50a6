import { platform } from "node:os";
import { isatty } from "node:tty";
import { defineCommand } from "citty";
import { ConfigError } from "@openassistant/core/config";
import { loadGatewayConfig } from "../../config-schema.ts";
import { McpConnection, mcpLogin, mcpOAuthPath } from "@openassistant/core/sources";
import { displayPath } from "../display-path.ts";
import { CliError, guard, rejectUnknownFlags, commandTable } from "../flags.ts";
import { PROJECT_ARG, resolveProject } from "../project.ts";
import { ownValue } from "@openassistant/core/tools";

const loginArgs = {
  name: { type: "positional", description: "The server's name in mcp.servers", required: true },
  project: PROJECT_ARG,
} as const;

/**
 * `openassistant mcp login <name>`: authorization code + PKCE for `mcp.servers.<name>` (which needs
 * `oauth`). Prints the authorization URL (and opens it when a browser is at hand), waits for the
 * redirect on 127.0.0.1, saves the tokens to <configDir>/mcp-oauth.json (0600) and lists the
 * server's tools with them. No token is ever printed.
 */
const loginCommand = defineCommand({
  meta: { name: "login", description: "Log in to an MCP server that uses OAuth (opens the authorization page)" },
  args: loginArgs,
  run: ({ args: a, rawArgs }) =>
    guard(async () => {
      rejectUnknownFlags(rawArgs, loginArgs);
      const name = String(a.name);
      let loaded: Awaited<ReturnType<typeof loadGatewayConfig>>;
      try {
        loaded = await loadGatewayConfig({ cwd: resolveProject(a.project), env: process.env });
      } catch (err) {
        if (err instanceof ConfigError) throw new CliError(`invalid config: ${err.message}`);
        throw err;
      }
      const servers = loaded.config.mcp.servers;
      const server = ownValue(servers, name);
      if (!server) {
        const known = Object.keys(servers);
        throw new CliError(
          `no MCP server "${name}" in mcp.servers${known.length ? ` (configured: ${known.join(", ")})` : ""}`,
        );
      }
      if (!("url" in server) || !server.oauth)
        throw new CliError(
          `mcp.servers.${name} does not use OAuth; add "oauth": {} to it (a server reached over "url") and run this again`,
        );
      const { enabled: _enabled, ...config } = server;
      const result = await mcpLogin({
        name,
        serverUrl: server.url,
        oauth: server.oauth,
        configDir: loaded.globalDir,
        openUrl: (url) => {
          console.log(`Open this page to authorize OpenAssistant for MCP server "${name}":\n\n  ${url}\n`);
          console.log("Waiting for the authorization server to redirect back to this machine (5 minutes)…");
          openBrowser(url);
        },
      });
      const connection = new McpConnection(name, config, loaded.globalDir);
      try {
        const tools = await connection.listTools();
        const facts = [
          result.scope ? `scope ${result.scope}` : undefined,
          result.expiresIn !== undefined ? `access token valid for ${result.expiresIn} s, then refreshed` : undefined,
        ].filter(Boolean);
        console.log(
          `Logged in to MCP server "${name}"${facts.length ? ` (${facts.join("; ")})` : ""}: ${tools.length} tool(s).`,
        );
        console.log(
          `Saved to ${displayPath(mcpOAuthPath(loaded.globalDir))} (mode 600). ` +
            "A running gateway uses it after /reload or a restart.",
        );
      } finally {
        await connection.close();
      }
    }),
});

/** Opens the page in the desktop's browser when there is one; the printed URL works either way. */
function openBrowser(url: string): void {
  if (!isatty(1)) return;
  const os = platform();
  const cmd =
    os === "darwin"
      ? ["open", url]
      : os === "linux" && (process.env.DISPLAY || process.env.WAYLAND_DISPLAY)
        ? ["xdg-open", url]
        : undefined;
  if (!cmd) return;
  try {
    Bun.spawn(cmd, { stdin: "ignore", stdout: "ignore", stderr: "ignore" }).unref();
  } catch {
    // No opener installed: the printed URL is enough.
  }
}

export const mcpCommand = defineCommand({
  meta: { name: "mcp", description: "MCP servers: log in to servers that use OAuth" },
  subCommands: commandTable({ login: loginCommand }),
});

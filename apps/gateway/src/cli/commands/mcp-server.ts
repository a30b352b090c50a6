import { defineCommand } from "citty";
import { loadGatewaySettings } from "../../config-adapter.ts";
import { openMcpTokens } from "../../mcp-server/tokens.ts";
import { CliError, commandTable, guard, rejectUnknownFlags } from "../flags.ts";
import { PROJECT_ARG, resolveProject } from "../project.ts";

/** The project's MCP client tokens (the data dir of its config). */
async function tokensOf(project: string | undefined) {
  const { settings } = await loadGatewaySettings(resolveProject(project), process.env, { tools: false });
  return { tokens: openMcpTokens(settings.dataDir), enabled: settings.mcpServer !== undefined };
}

/** A store error (a broken token file, a refused name) is the user's to fix: said without a stack. */
function asCliError<T>(work: () => T): T {
  try {
    return work();
  } catch (e) {
    throw new CliError(e instanceof Error ? e.message : String(e));
  }
}

const createArgs = {
  name: {
    type: "positional",
    description: "The client's name (receipts and approval cards name it: mcp:<name>)",
    required: true,
    valueHint: "name",
  },
  tools: {
    type: "string",
    description: "Comma-separated tool path patterns this client may use (default: every tool mcpServer.tools serves)",
    valueHint: "patterns",
  },
  project: PROJECT_ARG,
} as const;

const createCommand = defineCommand({
  meta: { name: "create", description: "Make a token for an MCP client (printed once; only its hash is kept)" },
  args: createArgs,
  run: ({ args: a, rawArgs }) =>
    guard(async () => {
      rejectUnknownFlags(rawArgs, createArgs);
      const { tokens, enabled } = await tokensOf(a.project);
      const patterns = a.tools
        ?.split(",")
        .map((p) => p.trim())
        .filter(Boolean);
      const token = asCliError(() => tokens.create(a.name, patterns));
      console.log(token);
      console.error(
        `Token for MCP client "${a.name}" (shown once; store it in the client's config as Authorization: Bearer <token>). Revoke it with: openassistant mcp-server token revoke ${a.name}`,
      );
      if (!enabled)
        console.error('The MCP server is off: set "mcpServer": { "enabled": true } in the config and restart.');
    }),
});

const listArgs = { project: PROJECT_ARG } as const;

const listCommand = defineCommand({
  meta: { name: "list", description: "The MCP clients that have a token, and the tools each may use" },
  args: listArgs,
  run: ({ args: a, rawArgs }) =>
    guard(async () => {
      rejectUnknownFlags(rawArgs, listArgs);
      const { tokens } = await tokensOf(a.project);
      const clients = asCliError(() => tokens.list());
      if (clients.length === 0)
        return void console.log("No MCP client has a token (openassistant mcp-server token create <name>).");
      for (const c of clients)
        console.log(
          `${c.name}\t${c.tools?.join(",") ?? "(every served tool)"}\tcreated ${new Date(c.createdAt).toISOString()}`,
        );
    }),
});

const revokeArgs = {
  name: { type: "positional", description: "The client whose token stops working", required: true, valueHint: "name" },
  project: PROJECT_ARG,
} as const;

const revokeCommand = defineCommand({
  meta: {
    name: "revoke",
    description: "Revoke an MCP client's token (a running gateway refuses it on its next request)",
  },
  args: revokeArgs,
  run: ({ args: a, rawArgs }) =>
    guard(async () => {
      rejectUnknownFlags(rawArgs, revokeArgs);
      const { tokens } = await tokensOf(a.project);
      if (!asCliError(() => tokens.revoke(a.name)))
        throw new CliError(`no MCP client named "${a.name}" has a token (see: openassistant mcp-server token list)`);
      console.log(`Revoked the token of MCP client "${a.name}"; its sessions end on their next request.`);
    }),
});

/** `openassistant mcp-server`: the gateway's tools served to MCP clients (docs/mcp-server.md). */
export const mcpServerCommand = defineCommand({
  meta: { name: "mcp-server", description: "The gateway as an MCP server: its clients' tokens" },
  subCommands: commandTable({
    token: defineCommand({
      meta: { name: "token", description: "Tokens of MCP clients: create, list, revoke" },
      subCommands: commandTable({ create: createCommand, list: listCommand, revoke: revokeCommand }),
    }),
  }),
});

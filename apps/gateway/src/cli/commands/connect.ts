import { defineCommand } from "citty";
import { connect, type ClientTool } from "@openassistant/client";
import { ConfigError } from "@openassistant/core/config";
import { loadTools } from "@openassistant/core/plugins";
import { closeSourceKinds, SOURCE_KINDS } from "@openassistant/core/sources";
import { flattenToolTree } from "@openassistant/core/tools";
import { loadGatewayConfig } from "../../config-schema.ts";
import { formatDiagnostic } from "../../diagnostics.ts";
import { CliError, guard, rejectUnknownFlags } from "../flags.ts";
import { PROJECT_ARG, resolveProject } from "../project.ts";

const args = {
  url: {
    type: "positional",
    description: "The gateway's HTTP API (e.g. http://127.0.0.1:8787)",
    required: true,
    valueHint: "url",
  },
  token: { type: "string", description: "A client token (default: $OPENASSISTANT_CLIENT_TOKEN)", valueHint: "token" },
  project: PROJECT_ARG,
} as const;

/**
 * `openassistant connect <url>`: this folder's tools — its `.openassistant/tools/*.ts` files,
 * plugins and the MCP servers of its config, loaded here as `start` would — become a remote
 * gateway's `tools.client.<namespace>_<tool>` for one session, and this terminal chats in it.
 * The reference use of @openassistant/client.
 */
export const connectCommand = defineCommand({
  meta: {
    name: "connect",
    description: "Bridge this folder's tools and MCP servers to a remote gateway and chat there",
  },
  args,
  run: ({ args: a, rawArgs }) =>
    guard(async () => {
      rejectUnknownFlags(rawArgs, args);
      const token = a.token ?? process.env.OPENASSISTANT_CLIENT_TOKEN;
      if (!token)
        throw new CliError(
          "no client token: pass --token or set OPENASSISTANT_CLIENT_TOKEN (on the gateway's machine: `openassistant clients create <name>`)",
        );
      try {
        await bridgeFolder(resolveProject(a.project), a.url, token);
      } finally {
        await closeSourceKinds(SOURCE_KINDS);
      }
      if (!process.exitCode) process.exit(0);
    }),
});

async function bridgeFolder(root: string, url: string, token: string): Promise<void> {
  let tools: Record<string, ClientTool> = {};
  try {
    const config = await loadGatewayConfig({ cwd: root, env: process.env, unsetVars: "report" });
    const result = await loadTools({ config, env: process.env, readOnly: true, log: () => {} });
    for (const d of result.diagnostics) if (d.level === "error") console.error(formatDiagnostic(d));
    // `github.issues.list` → `github_issues_list`: one identifier under tools.client.
    tools = Object.fromEntries(flattenToolTree(result.tree).map((t) => [t.path.replace(/\./g, "_"), t.definition]));
  } catch (e) {
    if (e instanceof ConfigError) throw new CliError(`invalid config: ${e.message}`);
    throw e;
  }
  const client = await connect({
    url,
    token,
    log: (line) => console.error(`[connection] ${line}`),
    onApproval: (u) =>
      console.error(
        u.state === "requested"
          ? `⏸️ waiting for approval: ${u.tool}`
          : `approval ${u.call}: ${u.decision.decision} by ${u.decision.by}`,
      ),
  });
  const registered = await client.addTools(tools);
  console.error(
    `Connected (session ${client.session}): ${registered.tools.length} tool(s) as tools.client.*${registered.refused.length ? `; refused: ${registered.refused.map((r) => `${r.name} (${r.reason})`).join(", ")}` : ""}. Type a message; Ctrl-D ends.`,
  );
  for await (const line of console) {
    if (!line.trim()) continue;
    const answer = await client.ask(line, { onText: (t) => process.stdout.write(t) });
    process.stdout.write(`\n${answer.summaryText ? `${answer.summaryText}\n` : ""}`);
  }
  await client.close();
}

/** Files written by `openassistant init` and `openassistant tools create`. */

export const CONFIG_TEMPLATE = `{
  // OpenAssistant configuration (JSONC: comments and trailing commas are fine).
  // Precedence: OPENASSISTANT_CONFIG > this file > ~/.config/openassistant/config.jsonc (objects merge, arrays replace).
  // Secrets: write "\${ENV_VAR}" instead of the value; a missing variable is an error at startup.
  // Full reference: docs/plugins.md in the OpenAssistant repository.

  // Plugin packages: npm names (optionally "name@^1.0.0"), tarballs ("./x-1.0.0.tgz", "https://…/x.tgz"),
  // git repositories ("git+https://…", "github:user/repo"), all installed by \`openassistant plugins install\`;
  // or plugin folders: "file://" URLs or paths relative to the project root (their dependencies: the same command).
  // Tools in .openassistant/tools/ and plugins in .openassistant/plugins/ are found without being listed here.
  // MCP servers ("mcp": { "servers": { "name": { "url": "…" } } }) and OpenAPI specs
  // ("openapi": { "name": { "spec": "path/from/project/root.json", "baseUrl": "https://…" } }): docs/tool-sources.md.
  "plugins": [],

  // Per-plugin settings, keyed by plugin id; checked against the plugin's configSchema.
  // "enabled": false switches a plugin off without uninstalling it.
  "config": {
    // "calendar": { "timezone": "Europe/Oslo", "defaultDurationMinutes": 30 }
  },

  // Switch tools on/off by id, path or pattern ("*" = one segment, "**" = any depth).
  // The most specific key wins.
  "tools": {
    // "notes.remove": false
  },

  // Operator policy over the tools' own approval modes; first matching rule wins.
  // mode: "auto" (run at once), "required" (ask an approver), "deny" (never run; reason goes to the model).
  "policy": {
    "rules": [
      // { "match": "calendar.events.delete", "mode": "deny", "reason": "deleting events is not allowed" }
    ]
  },

  // How long an approval request waits before it counts as denied.
  "approvals": { "timeoutSeconds": 600 },

  // Model settings; "system" is appended to the built-in system prompt.
  "model": {
    "name": "claude-sonnet-5-5"
  },

  // Discord surface. Only listed users/roles may talk to the bot; "approvers" may approve (default: allowedUsers).
  "discord": {
    // "token": "\${DISCORD_TOKEN}",
    "allowedUsers": [],
    "allowedRoles": []
  }

  // Other sections (all optional): "auth": { "anthropic": { "profileOrder": [], "pinned": "" } },
  // "database": { "path": ".openassistant/data/openassistant.sqlite" }, "http": { "port": 0, "token": "\${OA_HTTP_TOKEN}" }
}
`;

export function toolTemplate(name: string, approval: "auto" | "required"): string {
  return `import { defineTool, z } from "@openassistant/sdk";

/**
 * tools.${name}(...) — describe what it does in \`description\`; the model reads it.
 * approval "${approval}": ${approval === "auto" ? "runs at once" : "waits for an operator to approve each call"}.
 * Named exports (\`export const list = defineTool(...)\`) become tools.${name}.list instead.
 */
export default defineTool({
  description: "TODO: what ${name} does",
  approval: "${approval}",
  args: z.object({
    text: z.string().describe("TODO: describe this input"),
  }),
  run: async ({ text }) => {
    // The tool is live as soon as this file exists; until you implement it, calls fail with this message.
    throw new Error("TODO: implement ${name}");
  },
});
`;
}

export const EXAMPLE_TOOL = `import { defineTool, z } from "@openassistant/sdk";

/** Example tool: tools.clock({ timeZone }). Delete or edit it; files here reload automatically. */
export default defineTool({
  description: "Current date and time in an IANA time zone (e.g. Europe/Oslo)",
  approval: "auto",
  args: z.object({
    timeZone: z.string().optional().describe('IANA time zone such as "America/New_York"; omitted = gateway local time'),
  }),
  run: async ({ timeZone }) => {
    const zone = timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    const formatted = new Intl.DateTimeFormat("en-GB", { timeZone: zone, dateStyle: "full", timeStyle: "long" }).format(new Date());
    return { timeZone: zone, formatted };
  },
});
`;

/** tsconfig.json holds absolute paths to this machine's gateway checkout: regenerated, not committed. */
export const WORKSPACE_GITIGNORE = "node_modules/\ndata/\ncache/\n.install.lock\n.oa-stub/\ntsconfig.json\n";

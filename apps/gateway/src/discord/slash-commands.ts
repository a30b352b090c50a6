import type { Client } from "discord.js";

/** Application command JSON (type 1 = chat input). Option types: 1 subcommand, 3 string, 4 integer. */
export const SLASH_COMMANDS = [
  { name: "tools", description: "List loaded tools, their approval modes and load problems", type: 1 },
  {
    name: "receipts",
    description: "Recent tool-call receipts, or one run's trail",
    type: 1,
    options: [
      { type: 3, name: "run", description: "Run id (run_…) to show its whole trail", required: false },
      { type: 4, name: "page", description: "Page number (starts at 1)", required: false, min_value: 1 },
    ],
  },
  { name: "reload", description: "Reload tools from disk and plugins and report problems", type: 1 },
  { name: "new", description: "Start a fresh conversation (here, or in this DM)", type: 1 },
  {
    name: "approve",
    description: "Decide a pending approval by its call id",
    type: 1,
    options: [
      { type: 3, name: "id", description: "The call id from the card's footer", required: true },
      {
        type: 3,
        name: "decision",
        description: "approve or deny",
        required: true,
        choices: [
          { name: "approve", value: "approve" },
          { name: "deny", value: "deny" },
        ],
      },
      { type: 3, name: "reason", description: "Why (for denials; the assistant sees it)", required: false },
    ],
  },
  {
    name: "rules",
    description: "List or revoke 'approve always' rules",
    type: 1,
    options: [
      { type: 1, name: "list", description: "Active rules" },
      {
        type: 1,
        name: "revoke",
        description: "Revoke a rule",
        options: [{ type: 3, name: "id", description: "Rule id (ar_…)", required: true }],
      },
    ],
  },
] as const;

/** Registers the commands: in one guild when configured (instant), else globally (may take up to an hour to show). */
export async function registerSlashCommands(client: Client<true>, guildId: string | undefined): Promise<void> {
  const body = SLASH_COMMANDS as unknown as Parameters<typeof client.application.commands.set>[0];
  if (guildId) await client.application.commands.set(body, guildId);
  else await client.application.commands.set(body);
}

import type { Client } from "discord.js";

// https://docs.discord.com/developers/interactions/application-commands#application-command-object-application-command-option-structure
// — a string option's max_length is 1–6000; model ids (OpenRouter's `vendor/name:tag`) stay well under 200.
const MODEL_NAME_MAX = 200;
// The same page: an ability's inputs ("k=v k2=v2") in one string option, within its 6000.
const ABILITY_INPUTS_MAX = 2000;

/** Application command JSON (type 1 = chat input). Option types: 1 subcommand, 3 string, 4 integer. */
const SLASH_COMMANDS = [
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
  { name: "approvals", description: "Pending approvals, with buttons to decide them", type: 1 },
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
  {
    // #35: like the terminal's /model. No fixed choices: the endpoints' lists change and can pass
    // Discord's 25-choice limit, so the name is free text checked against them when it arrives.
    name: "model",
    description: "Show this conversation's model and what the providers offer, or switch it",
    type: 1,
    options: [
      {
        type: 3,
        name: "name",
        description: "A model name to switch to, or default (leave out to list the models)",
        required: false,
        max_length: MODEL_NAME_MAX,
      },
    ],
  },
  {
    // #32: the typed `/ability …` as an application command, answered by the same parser
    // (abilities/commands.ts). The name autocompletes from the defined abilities (which change, so no
    // fixed choices); `run` is deferred at once, its answer may wait on the run's first steps.
    name: "ability",
    description: "Run a defined ability, see its status, cancel it, or list the abilities",
    type: 1,
    options: [
      {
        type: 1,
        name: "run",
        description: "Start a run of an ability in this conversation",
        options: [
          { type: 3, name: "name", description: "The ability's name", required: true, autocomplete: true },
          {
            type: 3,
            name: "inputs",
            description: "Its inputs as key=value pairs separated by spaces",
            required: false,
            max_length: ABILITY_INPUTS_MAX,
          },
        ],
      },
      {
        type: 1,
        name: "status",
        description: "This conversation's latest ability run, or the run named",
        options: [{ type: 3, name: "run_id", description: "A run id (ability_…)", required: false }],
      },
      {
        type: 1,
        name: "cancel",
        description: "Cancel this conversation's running ability, or the run named",
        options: [{ type: 3, name: "run_id", description: "A run id (ability_…)", required: false }],
      },
      { type: 1, name: "list", description: "The defined abilities and their load problems" },
    ],
  },
] as const;

/** Commands that also work in DMs with the bot (everything except server-only needs; all of ours do). */
const DM_COMMANDS = new Set([
  "tools",
  "receipts",
  "rules",
  "approvals",
  "new",
  "approve",
  "reload",
  "model",
  "ability",
]);

// https://docs.discord.com/developers/interactions/application-commands#interaction-contexts —
// contexts 0 GUILD, 1 BOT_DM; integration_types 0 GUILD_INSTALL. Only global commands carry them:
// a guild command exists only in its guild, so DM use needs a global registration.
const GUILD = 0;
const BOT_DM = 1;
const GUILD_INSTALL = 0;

/**
 * Registers the commands. With a guild: all of them in that guild (instant) plus the DM-capable
 * ones globally for DMs only (so they do not show twice in the guild). Without: all globally, in
 * servers and DMs (Discord may take up to an hour to show global commands).
 */
export async function registerSlashCommands(client: Client<true>, guildId: string | undefined): Promise<void> {
  type Body = Parameters<typeof client.application.commands.set>[0];
  const all = SLASH_COMMANDS as unknown as Array<Record<string, unknown> & { name: string }>;
  const global = (contexts: number[]) =>
    all
      .filter((c) => contexts.includes(GUILD) || DM_COMMANDS.has(c.name))
      .map((c) => ({
        ...c,
        contexts: DM_COMMANDS.has(c.name) ? contexts : [GUILD],
        integration_types: [GUILD_INSTALL],
      }));
  if (guildId) {
    await client.application.commands.set(all as unknown as Body, guildId);
    await client.application.commands.set(global([BOT_DM]) as unknown as Body);
  } else {
    await client.application.commands.set(global([GUILD, BOT_DM]) as unknown as Body);
  }
}

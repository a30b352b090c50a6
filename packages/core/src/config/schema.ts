import { z } from "zod";

/** Operator override by tool path pattern (`*` within a segment, `**` across). First match wins. */
export const policyRuleSchema = z.strictObject({
  match: z.string().min(1),
  mode: z.enum(["auto", "required", "deny"]),
  reason: z.string().optional(),
});

const pluginConfigSchema = z.looseObject({ enabled: z.boolean().optional() });

export const configSchema = z.strictObject({
  /** Editor hint, ignored. */
  $schema: z.string().optional(),
  /** Plugin specifiers: npm name (optionally `name@range`), `file://` URL, relative or absolute path. */
  plugins: z.array(z.string().min(1)).default([]),
  /** Per-plugin configuration keyed by plugin id; `enabled: false` disables the plugin. */
  config: z.record(z.string(), pluginConfigSchema).default({}),
  /** Enable/disable tools by id, path or pattern (`calendar.*`, `github_issues.**`). */
  tools: z.record(z.string(), z.boolean()).default({}),
  auth: z
    .strictObject({
      anthropic: z
        .strictObject({
          profileOrder: z.array(z.string()).optional(),
          pinned: z.string().optional(),
        })
        .optional(),
    })
    .prefault({}),
  policy: z.strictObject({ rules: z.array(policyRuleSchema).default([]) }).prefault({}),
  approvals: z.strictObject({ timeoutSeconds: z.number().int().positive().default(600) }).prefault({}),
  model: z
    .strictObject({
      name: z.string().min(1).default("claude-sonnet-5-5"),
      maxTokens: z.number().int().positive().default(4096),
      maxRounds: z.number().int().positive().default(8),
      maxRepairRounds: z.number().int().nonnegative().default(3),
      turnTimeoutSeconds: z.number().positive().default(300),
      /** Input + output tokens summed over a turn's model requests. */
      maxTurnTokens: z.number().int().positive().default(400_000),
      /** Approximate token budget (characters / 4) for prior history in a request. */
      historyTokens: z.number().int().positive().default(60_000),
      /** Most prior messages sent in a request. */
      historyMessages: z.number().int().positive().default(200),
      /** Extra text appended to the system prompt. */
      system: z.string().optional(),
    })
    .prefault({}),
  discord: z
    .strictObject({
      token: z.string().optional(),
      allowedUsers: z.array(z.string()).default([]),
      allowedRoles: z.array(z.string()).default([]),
      allowedGuilds: z.array(z.string()).default([]),
      allowedChannels: z.array(z.string()).default([]),
      approvers: z.array(z.string()).optional(),
      /** Guild where slash commands are registered (instant); global registration otherwise. */
      guildId: z.string().optional(),
      approvalDmToApprovers: z.boolean().default(false),
      /** Channel id where every approval card is also posted; approvers can always find pending cards there. */
      approvalsChannel: z.string().optional(),
      /** Where an "Approve always" rule applies: the conversation it was made in, or everywhere. */
      alwaysScope: z.enum(["session", "global"]).default("session"),
      /** Hours until an "Approve always" rule expires. */
      alwaysTtlHours: z.number().positive().default(24),
    })
    .prefault({}),
  database: z.strictObject({ path: z.string().optional() }).prefault({}),
  http: z
    .strictObject({
      /** 0 = HTTP API disabled. */
      port: z.number().int().min(0).max(65535).default(0),
      token: z.string().optional(),
    })
    .prefault({}),
});

export type OpenAssistantConfig = z.output<typeof configSchema>;
export type OpenAssistantConfigInput = z.input<typeof configSchema>;

/** The config with every default applied, as used when no file exists. */
export function defaultConfig(): OpenAssistantConfig {
  return configSchema.parse({});
}

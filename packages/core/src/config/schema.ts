import { z } from "zod";
import { checkModelSettings } from "./model-capabilities.ts";
import { secret } from "./secret-mark.ts";
import { sourceKindsShape } from "../sources/kind.ts";
import { SOURCE_KINDS } from "../sources/kinds.ts";

/** Operator override by tool path pattern (`*` within a segment, `**` across). First match wins. */
export const policyRuleSchema = z.strictObject({
  match: z.string().min(1),
  mode: z.enum(["auto", "required", "deny"]),
  reason: z.string().optional(),
});

/**
 * `critical: true`: the plugin must load (and register its hooks) or the gateway refuses to start.
 * `hookTimeoutMs`: each of its hooks' time limit, over the plugin's own `timeoutMs` (default 5 000).
 */
const pluginConfigSchema = z.looseObject({
  enabled: z.boolean().optional(),
  critical: z.boolean().optional(),
  hookTimeoutMs: z.number().int().positive().max(600_000).optional(),
});

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
      /**
       * Tokens (characters / 4) the tool declarations may take in the prompt. Above it the prompt
       * lists namespaces and the model finds tools with tools.$search / tools.$describe.
       */
      toolPromptTokens: z.number().int().positive().default(15_000),
      /** Extra text appended to the system prompt. */
      system: z.string().optional(),
      /** Thinking depth (`output_config.effort`); allowed values depend on the model (model-capabilities.ts). */
      effort: z.enum(["low", "medium", "high", "xhigh", "max"]).optional(),
      /** `adaptive` | `between_tools` (| `enabled` | `disabled` on older models), as the model allows. */
      thinking: z.enum(["adaptive", "between_tools", "enabled", "disabled"]).optional(),
      /** `summarized` returns readable thinking (shown as progress); the current models default to `omitted`. */
      thinkingDisplay: z.enum(["summarized", "omitted"]).optional(),
    })
    .superRefine((model, ctx) => {
      for (const message of checkModelSettings(model.name, model)) ctx.addIssue({ code: "custom", message, path: [] });
    })
    .prefault({}),
  discord: z
    .strictObject({
      token: secret(z.string()).optional(),
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
  /** The config-named tool sources (`config.openapi`, `config.mcp`, …): sources/kinds.ts. */
  ...sourceKindsShape(SOURCE_KINDS),
  /** The assistant's own tool files (`tools.workspace.*`). */
  workspace: z
    .strictObject({
      /** Offer `tools.workspace.*` to the model at all. */
      enabled: z.boolean().default(true),
      /**
       * DANGEROUS: lets operator rules and "approve always" make writing or removing tool files
       * automatic. Tools run in the gateway with full rights; leave this off.
       */
      allowAutoWrite: z.boolean().default(false),
    })
    .prefault({}),
  database: z.strictObject({ path: z.string().optional() }).prefault({}),
  http: z
    .strictObject({
      /** 0 = HTTP API disabled. */
      port: z.number().int().min(0).max(65535).default(0),
      token: secret(z.string()).optional(),
      /** Address to listen on; only change it behind a reverse proxy or tunnel you trust. */
      host: z.string().min(1).default("127.0.0.1"),
      /** The console's address as people reach it (reverse proxy/tunnel), for receipt and login links. */
      publicUrl: z.url({ protocol: /^https?$/ }).optional(),
      /** Operator ids who may sign in to the console and decide approvals (default: the Discord approvers). */
      approvers: z.array(z.string().min(1)).optional(),
    })
    .prefault({}),
});

export type OpenAssistantConfig = z.output<typeof configSchema>;
export type OpenAssistantConfigInput = z.input<typeof configSchema>;

/** The config with every default applied, as used when no file exists. */
export function defaultConfig(): OpenAssistantConfig {
  return configSchema.parse({});
}

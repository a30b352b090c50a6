import { z } from "zod";
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
 * The `model` section's settings. Core knows no model: the gateway replaces the section with one
 * that names its default model and checks `thinking` / `effort` against that model
 * (apps/gateway/src/model/config-schema.ts).
 */
export const modelSettingsShape = {
  /** The model id; the gateway's config sets its default and checks the settings against it. */
  name: z.string().min(1).optional(),
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
  /** Thinking depth (`output_config.effort`); allowed values depend on the model (the gateway checks them). */
  effort: z.enum(["low", "medium", "high", "xhigh", "max"]).optional(),
  /** `adaptive` | `between_tools` (| `enabled` | `disabled` on older models), as the model allows. */
  thinking: z.enum(["adaptive", "between_tools", "enabled", "disabled"]).optional(),
  /** `summarized` returns readable thinking (shown as progress); the current models default to `omitted`. */
  thinkingDisplay: z.enum(["summarized", "omitted"]).optional(),
  ...modelEndpointShape(),
  /** #35: the models that take a turn, in order, when this one is down or rate limited. */
  fallbacks: z.array(z.strictObject({ name: z.string().min(1), ...modelEndpointShape() })).optional(),
};

/**
 * #35: which API a model is asked through (docs/models.md): Claude's (the default) or an
 * OpenAI-compatible Chat Completions endpoint (Ollama, vLLM, LM Studio, llama.cpp, OpenRouter).
 */
function modelEndpointShape() {
  return {
    provider: z.enum(["anthropic", "openai-compatible"]).optional(),
    /** The endpoint; for OpenAI-compatible servers with its `/v1` (http://127.0.0.1:11434/v1 for Ollama). */
    baseUrl: z
      .url({ protocol: /^https?$/, error: "must be an http(s) URL, e.g. http://127.0.0.1:11434/v1" })
      .optional(),
    /** The endpoint's API key, usually `"${OPENROUTER_API_KEY}"`; a credential (redacted everywhere). */
    apiKey: secret(z.string().min(1)).optional(),
    /** OpenAI-compatible models: `native` tool calls, or `code-block` (the code in a fenced block of the reply). */
    toolCalls: z.enum(["native", "code-block"]).optional(),
  };
}

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
  model: z.strictObject(modelSettingsShape).prefault({}),
  /**
   * Each tool source kind's own section (`config.plugins`, `config.openapi`, `config.mcp`,
   * `config.workspace`, …): sources/kinds.ts.
   */
  ...sourceKindsShape(SOURCE_KINDS),
  database: z.strictObject({ path: z.string().optional() }).prefault({}),
  /**
   * Where the stores live when several gateways share them: a PostgreSQL URL, usually
   * `"${DATABASE_URL}"` (docs/scaling.md). Absent: the SQLite file (`database.path`). A credential:
   * the URL may carry the password.
   */
  storage: z
    .strictObject({
      url: secret(
        z.string().regex(/^postgres(ql)?:\/\/./, {
          message:
            'storage.url must be a PostgreSQL URL (postgres://user:password@host:5432/database), e.g. "${DATABASE_URL}"',
        }),
      ).optional(),
    })
    .prefault({}),
  http: z
    .strictObject({
      /** 0 = HTTP API disabled. */
      port: z.number().int().min(0).max(65535).default(0),
      token: secret(z.string()).optional(),
      /** Address to listen on; only change it behind a reverse proxy or tunnel you trust. */
      host: z.string().min(1).default("127.0.0.1"),
      /** The console's address as people reach it (reverse proxy/tunnel), for receipt and login links. */
      publicUrl: z.url({ protocol: /^https?$/ }).optional(),
      /** Operator ids who may sign in to the console and decide approvals (default: the operators the configured surfaces name). */
      approvers: z.array(z.string().min(1)).optional(),
    })
    .prefault({}),
  /**
   * #34: the gateway serves its tools as an MCP server (streamable HTTP) to MCP clients holding a
   * token made by `openassistant mcp-server token create` (docs/mcp-server.md). Off by default.
   */
  mcpServer: z
    .strictObject({
      enabled: z.boolean().default(false),
      /** 0 = a free port chosen at start (logged); set one for a client's config to keep working. */
      port: z.number().int().min(0).max(65535).default(0),
      /** Address to listen on (loopback by default); only change it behind a reverse proxy or tunnel you trust. */
      host: z.string().min(1).default(`127.0.0.1`),
      /** Tool path patterns MCP clients may list and call (a token may narrow them further). */
      tools: z.array(z.string().min(1)).default(["**"]),
      /** Largest request body accepted, in bytes (larger: 413, nothing parsed). */
      maxRequestBytes: z.number().int().min(1024).max(16_777_216).default(1_048_576),
      /** Most MCP sessions open at once (each token's sessions included); a new one past it is refused. */
      maxSessions: z.number().int().positive().max(1000).default(16),
    })
    .prefault({}),
});

export type OpenAssistantConfig = z.output<typeof configSchema>;

/** A config schema: core's, or core's with the sections the app adds (`withConfigSections`). */
export type ConfigSchema<C extends OpenAssistantConfig = OpenAssistantConfig> = z.ZodType<C> & {
  readonly shape: Readonly<Record<string, z.ZodType>>;
};

/**
 * Core's config schema with the app's own sections (its surfaces, its model) added or replacing
 * core's; still strict, so an unknown key anywhere is named with the keys allowed there.
 */
export function withConfigSections<S extends Record<string, z.ZodType>>(sections: S) {
  return configSchema.extend(sections);
}

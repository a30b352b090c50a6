import type { EffortLevel, ThinkingSetting } from "../model/capabilities.ts";
import { modelConfigSchema, type ModelConfig } from "../model/config-schema.ts";

/** The knobs of one turn; defaults = the config schema's `model` defaults, overridden by config `model.*` and per-session settings. */
export interface TurnSettings {
  readonly model: string;
  /** max_tokens per model response. */
  readonly maxTokens: number;
  /** Appended to the system prompt (config `model.system`). */
  readonly system?: string;
  /** Model requests per turn. */
  readonly maxRounds: number;
  /** Typecheck failures the model may repair per turn. */
  readonly maxRepairRounds: number;
  /** Input + output tokens summed over the turn's model requests. */
  readonly maxTurnTokens: number;
  /** Model and tool time of a turn; the clock stands still while an approval waits (see turn-clock.ts). */
  readonly turnTimeoutSeconds: number;
  /** Approximate token budget (chars / 4) for prior history in the request. */
  readonly historyTokens: number;
  readonly historyMessages: number;
  /** Budget for the tool declarations in the prompt; above it, discovery mode (namespaces + tools.$search). */
  readonly toolPromptTokens?: number;
  /** `output_config.effort`; sent only when the model supports it (model/capabilities.ts). */
  readonly effort?: EffortLevel;
  /** `thinking.type`; sent only when the model accepts it, else the model's default applies. */
  readonly thinking?: ThinkingSetting;
  /** `thinking.display` for adaptive / budget thinking: "summarized" returns readable progress. */
  readonly thinkingDisplay?: "summarized" | "omitted";
  /**
   * The context window to plan for, when it is not the capability table's (a proxy or a deployment
   * with a smaller window; tests): requests projected past it are compacted before they are sent.
   */
  readonly contextWindowTokens?: number;
}

/** The config's `model` section (model/config-schema.ts) as turn settings: the one place both meet. */
export function turnSettingsFromConfig(model: ModelConfig): TurnSettings {
  return {
    model: model.name,
    maxTokens: model.maxTokens,
    maxRounds: model.maxRounds,
    maxRepairRounds: model.maxRepairRounds,
    maxTurnTokens: model.maxTurnTokens,
    turnTimeoutSeconds: model.turnTimeoutSeconds,
    historyTokens: model.historyTokens,
    historyMessages: model.historyMessages,
    toolPromptTokens: model.toolPromptTokens,
    ...(model.system ? { system: model.system } : {}),
    ...(model.effort ? { effort: model.effort } : {}),
    ...(model.thinking ? { thinking: model.thinking } : {}),
    ...(model.thinkingDisplay ? { thinkingDisplay: model.thinkingDisplay } : {}),
  };
}

/** The defaults are the config schema's defaults, so the two can never disagree. */
export const DEFAULT_TURN_SETTINGS: TurnSettings = turnSettingsFromConfig(modelConfigSchema.parse(undefined));

/** Picks known keys of the right type from a loose object (config section or session settings). */
export function mergeTurnSettings(
  base: TurnSettings,
  overrides: Readonly<Record<string, unknown>> | undefined,
): TurnSettings {
  if (!overrides) return base;
  const out: Record<string, unknown> = { ...base };
  for (const key of Object.keys(base) as (keyof TurnSettings)[]) {
    const v = overrides[key];
    if (v !== undefined && v !== null && typeof v === typeof base[key]) out[key] = v;
  }
  for (const key of ["system", "effort", "thinking", "thinkingDisplay"] as const)
    if (typeof overrides[key] === "string") out[key] = overrides[key];
  return out as unknown as TurnSettings;
}

/** The knobs of one turn; defaults below, overridden by config `model.*` and per-session settings. */
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
  readonly turnTimeoutSeconds: number;
  /** Approximate token budget (chars / 4) for prior history in the request. */
  readonly historyTokens: number;
  readonly historyMessages: number;
}

export const DEFAULT_TURN_SETTINGS: TurnSettings = {
  model: "claude-sonnet-4-6",
  maxTokens: 4096,
  maxRounds: 12,
  maxRepairRounds: 3,
  maxTurnTokens: 400_000,
  turnTimeoutSeconds: 900,
  historyTokens: 60_000,
  historyMessages: 200,
};

/** Picks known keys of the right type from a loose object (config section or session settings). */
export function mergeTurnSettings(base: TurnSettings, overrides: Readonly<Record<string, unknown>> | undefined): TurnSettings {
  if (!overrides) return base;
  const out: Record<string, unknown> = { ...base };
  for (const key of Object.keys(base) as (keyof TurnSettings)[]) {
    const v = overrides[key];
    if (v !== undefined && v !== null && typeof v === typeof base[key]) out[key] = v;
  }
  if (typeof overrides.system === "string") out.system = overrides.system;
  return out as unknown as TurnSettings;
}

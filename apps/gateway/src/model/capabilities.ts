/**
 * What each Claude model the gateway offers accepts, from platform.claude.com and the model list of
 * `@anthropic-ai/sdk` 1.12 (its `Model` union). The gateway builds requests from this table so a
 * request never carries what the chosen model rejects; the config schema validates `model.thinking`
 * and `model.effort` against it. Sources are listed in docs/anthropic-contract.md.
 */

/** `model.thinking` values: how much the model thinks before and between tool calls. */
export type ThinkingSetting = "adaptive" | "between_tools" | "enabled" | "disabled";
export type EffortLevel = "low" | "medium" | "high" | "xhigh" | "max";

export interface ModelCapabilities {
  readonly id: string;
  /** What happens when a request has no `thinking` field. */
  readonly thinkingWhenOmitted: "adaptive" | "off";
  /** `thinking.type` values the API accepts for this model. */
  readonly thinking: readonly ThinkingSetting[];
  /** The thinking display when none is sent: "omitted" returns empty thinking text (signature only). */
  readonly defaultDisplay: "omitted" | "summarized";
  /** `output_config.effort` values; empty when the model has no effort parameter. */
  readonly effort: readonly EffortLevel[];
  readonly defaultEffort?: EffortLevel;
  /** Efforts `between_tools` can be combined with (xhigh / max need adaptive thinking). */
  readonly betweenToolsEffort?: readonly EffortLevel[];
  readonly contextWindow: number;
  readonly maxOutput: number;
  /** Requests the API answers with 400 for this model. */
  readonly rejects: {
    readonly forcedToolChoice: boolean;
    readonly samplingParameters: boolean;
    readonly assistantPrefill: boolean;
    readonly thinkingBudget: boolean;
  };
  /** Docs page the row comes from. */
  readonly source: string;
}

const ALL_EFFORT: readonly EffortLevel[] = ["low", "medium", "high", "xhigh", "max"];

const sonnet55: Omit<ModelCapabilities, "id"> = {
  thinkingWhenOmitted: "adaptive",
  thinking: ["adaptive", "between_tools"],
  defaultDisplay: "omitted",
  effort: ALL_EFFORT,
  defaultEffort: "high",
  betweenToolsEffort: ["low", "medium", "high"],
  contextWindow: 1_000_000,
  maxOutput: 128_000,
  rejects: { forcedToolChoice: true, samplingParameters: true, assistantPrefill: true, thinkingBudget: true },
  source: "https://platform.claude.com/docs/en/models/sonnet-5-5/migration-guide",
};

const sonnet5: Omit<ModelCapabilities, "id"> = {
  thinkingWhenOmitted: "adaptive",
  thinking: ["adaptive", "disabled"],
  defaultDisplay: "omitted",
  effort: ALL_EFFORT,
  defaultEffort: "high",
  contextWindow: 1_000_000,
  maxOutput: 128_000,
  rejects: { forcedToolChoice: false, samplingParameters: true, assistantPrefill: false, thinkingBudget: true },
  source: "https://platform.claude.com/docs/en/models/sonnet-5/migration-guide",
};

const haiku45: Omit<ModelCapabilities, "id"> = {
  thinkingWhenOmitted: "off",
  thinking: ["disabled", "enabled"],
  defaultDisplay: "summarized",
  effort: [],
  contextWindow: 200_000,
  maxOutput: 64_000,
  rejects: { forcedToolChoice: false, samplingParameters: false, assistantPrefill: false, thinkingBudget: false },
  source: "https://platform.claude.com/docs/en/about-claude/models/overview",
};

const LINEUP = "https://platform.claude.com/docs/en/models/haiku-5-5/overview";

const rows: Array<[string, Omit<ModelCapabilities, "id">]> = [
  // The current lineup ("How it compares" table on the model pages): Fable 5.1 and Opus 5.5 think
  // always (adaptive only), Sonnet 5.5 and Haiku 5.5 adaptively; all 1M context, 128K output.
  ["claude-sonnet-5-5", sonnet55],
  [
    "claude-opus-5-5",
    { ...sonnet55, thinking: ["adaptive"], betweenToolsEffort: [], defaultEffort: "medium", source: LINEUP },
  ],
  ["claude-fable-5-1", { ...sonnet55, thinking: ["adaptive"], betweenToolsEffort: [], source: LINEUP }],
  [
    "claude-haiku-5-5",
    {
      ...sonnet5,
      defaultEffort: "medium",
      rejects: { ...sonnet5.rejects, assistantPrefill: true },
      source: "https://platform.claude.com/docs/en/models/haiku-5-5/migration-guide",
    },
  ],
  // Earlier models the SDK still lists.
  ["claude-sonnet-5", sonnet5],
  ["claude-opus-5", { ...sonnet5, source: "https://platform.claude.com/docs/en/models/opus-5/overview" }],
  ["claude-haiku-4-5", haiku45],
  ["claude-haiku-4-5-20251001", haiku45],
];

const MODEL_CAPABILITIES: ReadonlyMap<string, ModelCapabilities> = new Map(
  rows.map(([id, row]) => [id, { id, ...row }]),
);

/** The row for a model id, or undefined for a model the table does not know. */
export function modelCapabilities(model: string): ModelCapabilities | undefined {
  return MODEL_CAPABILITIES.get(model);
}

const KNOWN_MODELS: readonly string[] = [...MODEL_CAPABILITIES.keys()];

/** Every model id the capability table knows, in table order. */
export function knownModels(): readonly string[] {
  return KNOWN_MODELS;
}

/** Problems with `model.thinking` / `model.effort` for this model, each naming the allowed values. */
export function checkModelSettings(model: string, settings: { thinking?: string; effort?: string }): string[] {
  const caps = modelCapabilities(model);
  const problems: string[] = [];
  if (!caps) {
    if (settings.thinking !== undefined || settings.effort !== undefined)
      problems.push(
        `model "${model}" is not in the capability table, so model.thinking / model.effort cannot be checked; known models: ${KNOWN_MODELS.join(", ")}`,
      );
    return problems;
  }
  if (settings.thinking !== undefined && !caps.thinking.includes(settings.thinking as ThinkingSetting))
    problems.push(
      `model.thinking "${settings.thinking}" is not supported by ${model}; allowed: ${caps.thinking.join(", ")}`,
    );
  if (settings.effort !== undefined) {
    if (caps.effort.length === 0)
      problems.push(`model.effort is not supported by ${model} (it has no effort parameter); remove model.effort`);
    else if (!caps.effort.includes(settings.effort as EffortLevel))
      problems.push(
        `model.effort "${settings.effort}" is not supported by ${model}; allowed: ${caps.effort.join(", ")}`,
      );
    else if (
      settings.thinking === "between_tools" &&
      caps.betweenToolsEffort &&
      !caps.betweenToolsEffort.includes(settings.effort as EffortLevel)
    )
      problems.push(
        `model.effort "${settings.effort}" cannot be combined with model.thinking "between_tools" on ${model}; allowed with between_tools: ${caps.betweenToolsEffort.join(", ")}`,
      );
  }
  return problems;
}

/**
 * What the fake Anthropic API knows about each model it serves: the documented rules the real API
 * applies per model. Kept independent of the gateway's own capability table on purpose, so a
 * mistake in one is caught by the other. Each field cites the page it comes from.
 */

export const DOCS = {
  whatsNewSonnet55: "https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5",
  migrationSonnet55: "https://platform.claude.com/docs/en/models/sonnet-5-5/migration-guide",
  migrationSonnet5: "https://platform.claude.com/docs/en/models/sonnet-5/migration-guide",
  migrationHaiku55: "https://platform.claude.com/docs/en/models/haiku-5-5/migration-guide",
  modelsOverview: "https://platform.claude.com/docs/en/about-claude/models/overview",
  opus5Overview: "https://platform.claude.com/docs/en/models/opus-5/overview",
  preservedThinking: "https://platform.claude.com/docs/build-with-claude/preserved-thinking",
  extendedThinking: "https://platform.claude.com/docs/en/build-with-claude/extended-thinking",
  thinking: "https://platform.claude.com/docs/en/build-with-claude/thinking",
  effort: "https://platform.claude.com/docs/en/build-with-claude/effort",
  toolUse: "https://platform.claude.com/docs/en/agents-and-tools/tool-use/implement-tool-use",
  streaming: "https://platform.claude.com/docs/en/build-with-claude/streaming",
  stopReasons: "https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons",
  errors: "https://platform.claude.com/docs/en/api/errors",
  promptCaching: "https://platform.claude.com/docs/en/build-with-claude/prompt-caching",
  messages: "https://platform.claude.com/docs/en/api/messages",
  contextWindows: "https://platform.claude.com/docs/en/build-with-claude/context-windows",
  streamingRefusals:
    "https://platform.claude.com/docs/test-and-evaluate/strengthen-guardrails/handle-streaming-refusals",
} as const;

export type FakeThinkingType = "adaptive" | "between_tools" | "disabled" | "enabled";

export interface FakeModelRules {
  /** Thinking when the request has no `thinking` field. */
  readonly thinkingWhenOmitted: "adaptive" | "off";
  /** Accepted `thinking.type` values; anything else is a 400. */
  readonly thinkingTypes: readonly FakeThinkingType[];
  readonly defaultDisplay: "omitted" | "summarized";
  /** Accepted `output_config.effort` values; empty = the parameter is a 400. */
  readonly efforts: readonly string[];
  /** Efforts `between_tools` may be combined with. */
  readonly betweenToolsEfforts?: readonly string[];
  /** tool_choice `any` / `tool` is a 400. */
  readonly rejectsForcedToolChoice: boolean;
  /** temperature / top_p / top_k are a 400. */
  readonly rejectsSampling: boolean;
  /** A request whose last message is the assistant's (prefill) is a 400. */
  readonly rejectsPrefill: boolean;
  /** A thinking block made by another model is a 400 (tied to the model and the conversation). */
  readonly thinkingTiedToModel: boolean;
  readonly contextWindow: number;
  readonly maxOutput: number;
  /** Shortest prompt prefix that is cached. */
  readonly minCacheableTokens: number;
}

const SONNET_5_5: FakeModelRules = {
  // DOCS.migrationSonnet55: "a request without a thinking field runs with adaptive thinking";
  // accepted thinking.type "adaptive", "between_tools"; default display "omitted".
  thinkingWhenOmitted: "adaptive",
  thinkingTypes: ["adaptive", "between_tools"],
  defaultDisplay: "omitted",
  // DOCS.whatsNewSonnet55: between_tools works at low, medium and high effort; xhigh/max are a 400.
  efforts: ["low", "medium", "high", "xhigh", "max"],
  betweenToolsEfforts: ["low", "medium", "high"],
  // DOCS.migrationSonnet55: five settings return 400: thinking budgets, sampling parameters,
  // assistant prefill, forced tool choice, thinking {type: "disabled"}.
  rejectsForcedToolChoice: true,
  rejectsSampling: true,
  rejectsPrefill: true,
  // DOCS.whatsNewSonnet55: "Thinking blocks are tied to the model and the conversation".
  thinkingTiedToModel: true,
  // apidog/what's-new summary of the model page: 1M context, 128K output; 512-token minimum cacheable prompt.
  contextWindow: 1_000_000,
  maxOutput: 128_000,
  minCacheableTokens: 512,
};

const SONNET_5: FakeModelRules = {
  // DOCS.migrationSonnet5: adaptive thinking on by default; manual extended thinking
  // (type "enabled" with budget_tokens) is a 400; non-default sampling parameters are a 400.
  // DOCS.migrationSonnet55 table: Sonnet 5 accepts "adaptive", "disabled"; display "omitted".
  thinkingWhenOmitted: "adaptive",
  thinkingTypes: ["adaptive", "disabled"],
  defaultDisplay: "omitted",
  efforts: ["low", "medium", "high", "xhigh", "max"],
  rejectsForcedToolChoice: false,
  rejectsSampling: true,
  rejectsPrefill: false,
  thinkingTiedToModel: false,
  contextWindow: 1_000_000,
  maxOutput: 128_000,
  minCacheableTokens: 1024,
};

const HAIKU_4_5: FakeModelRules = {
  // DOCS.modelsOverview: Haiku 4.5 has extended thinking (type "enabled" + budget_tokens), off unless
  // asked for; effort "Not supported"; 200K context, 64K output. DOCS.extendedThinking: summarized thinking.
  thinkingWhenOmitted: "off",
  thinkingTypes: ["enabled", "disabled"],
  defaultDisplay: "summarized",
  efforts: [],
  rejectsForcedToolChoice: false,
  rejectsSampling: false,
  rejectsPrefill: false,
  thinkingTiedToModel: false,
  contextWindow: 200_000,
  maxOutput: 64_000,
  minCacheableTokens: 2048,
};

/** The models the fake serves (ids from the SDK's `Model` union and the models overview). */
export const FAKE_MODELS: Readonly<Record<string, FakeModelRules>> = {
  "claude-sonnet-5-5": SONNET_5_5,
  // https://platform.claude.com/docs/en/models/haiku-5-5/overview ("How it compares"): Fable 5.1 and
  // Opus 5.5 — "Adaptive (always on)": adaptive is the only accepted thinking type.
  "claude-opus-5-5": { ...SONNET_5_5, thinkingTypes: ["adaptive"], betweenToolsEfforts: [] },
  "claude-fable-5-1": { ...SONNET_5_5, thinkingTypes: ["adaptive"], betweenToolsEfforts: [] },
  // DOCS.migrationHaiku55: adaptive instead of budgets; sampling parameters and prefill are 400s;
  // thinking blocks work only in the account that produced them. Overview: 1M context, 128K output.
  "claude-haiku-5-5": {
    ...SONNET_5,
    thinkingTypes: ["adaptive", "disabled"],
    rejectsPrefill: true,
    thinkingTiedToModel: true,
  },
  "claude-sonnet-5": SONNET_5,
  "claude-opus-5": SONNET_5,
  "claude-haiku-4-5": HAIKU_4_5,
  "claude-haiku-4-5-20251001": HAIKU_4_5,
};

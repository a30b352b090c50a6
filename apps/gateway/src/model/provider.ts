import type { ModelStreamer } from "../agent/run-turn.ts";

/** The kinds of model API the gateway speaks (config `model.provider`). */
export type ProviderKind = "anthropic" | "openai-compatible";

/**
 * How a model of an OpenAI-compatible endpoint is asked for code: `native` gives it the `execute`
 * function (tool calls), `code-block` asks for the code in a fenced block of its text, for models
 * whose native tool calls are unreliable (model/openai/code-block.ts).
 */
export type ToolCallMode = "native" | "code-block";

/** One configured model: the primary (`model.*`) or one of `model.fallbacks`. */
export interface ModelTarget {
  readonly provider: ProviderKind;
  readonly name: string;
  /** The endpoint (openai-compatible: required, with its `/v1`; anthropic: the usual override). */
  readonly baseURL?: string;
  /** openai-compatible: the key sent as `Authorization: Bearer`; a credential, redacted everywhere. */
  readonly apiKey?: string;
  /** openai-compatible: native tool calls or the fenced-code protocol (default native). */
  readonly toolCalls?: ToolCallMode;
}

/**
 * The model provider port: what the turn loop needs from any model API. Requests and answers are
 * in the Messages API's shape (the turn loop's own); a provider of another API translates both
 * ways and maps its failures to ModelError (model/errors.ts) with the same kinds.
 */
export interface ModelProvider extends ModelStreamer {
  readonly kind: ProviderKind;
  /** Where it sends requests (for messages and doctor). */
  readonly endpoint: string;
  /** The model names the endpoint offers (its model list; the capability table for Anthropic). */
  listModels(signal?: AbortSignal): Promise<readonly string[]>;
}

/** `provider:name`, how receipts, events and `/model` name a configured model. */
export const targetLabel = (t: Pick<ModelTarget, "provider" | "name">): string => `${t.provider}:${t.name}`;

import { knownModels } from "./capabilities.ts";
import { targetLabel, type ModelTarget, type ProviderKind } from "./provider.ts";

/** What one configured endpoint offers (or why it could not say). */
export interface ProviderOffer {
  readonly provider: ProviderKind;
  readonly endpoint: string;
  readonly models: readonly string[];
  readonly error?: string;
}

export interface ModelCatalog {
  /** Each configured endpoint's models, asked now. */
  offers(signal?: AbortSignal): Promise<readonly ProviderOffer[]>;
  /** The configured model a name stands for (a configured one, or one a configured endpoint offers). */
  resolve(name: string, signal?: AbortSignal): Promise<ModelTarget | undefined>;
}

/** Asks an OpenAI-compatible endpoint for its models (`GET /models`). */
export type ListModels = (target: ModelTarget, signal?: AbortSignal) => Promise<readonly string[]>;

const endpointOf = (t: ModelTarget): string =>
  t.provider === "anthropic" ? (t.baseURL ?? "https://api.anthropic.com") : (t.baseURL ?? "");

/**
 * The models `/model` may switch to: the Claude models of the capability table when a configured
 * model is Claude's, and what each configured OpenAI-compatible endpoint lists. A name found on an
 * endpoint is served by it with that endpoint's settings (key, tool-call mode).
 */
export function createModelCatalog(targets: readonly ModelTarget[], listModels: ListModels): ModelCatalog {
  // One entry per endpoint (the first configured model of it lends its key and mode).
  const endpoints = new Map<string, ModelTarget>();
  for (const t of targets) if (!endpoints.has(endpointOf(t))) endpoints.set(endpointOf(t), t);
  const listed = new Map<string, readonly string[]>();

  const offerOf = async (t: ModelTarget, signal?: AbortSignal): Promise<ProviderOffer> => {
    const endpoint = endpointOf(t);
    if (t.provider === "anthropic") return { provider: t.provider, endpoint, models: knownModels() };
    try {
      const models = await listModels(t, signal);
      listed.set(endpoint, models);
      return { provider: t.provider, endpoint, models };
    } catch (e) {
      return { provider: t.provider, endpoint, models: [], error: e instanceof Error ? e.message : String(e) };
    }
  };

  return {
    offers: (signal) => Promise.all([...endpoints.values()].map((t) => offerOf(t, signal))),
    async resolve(name, signal) {
      const configured = targets.find((t) => t.name === name);
      if (configured) return configured;
      for (const t of endpoints.values()) {
        if (t.provider === "anthropic" && knownModels().includes(name)) return { ...t, name };
        if (t.provider !== "openai-compatible") continue;
        const models = listed.get(endpointOf(t))?.includes(name)
          ? listed.get(endpointOf(t))!
          : (await offerOf(t, signal)).models;
        if (models.includes(name)) return { ...t, name };
      }
      return undefined;
    },
  };
}

/** Every configured model, labelled, for messages (`anthropic:claude-sonnet-5-5, openai-compatible:llama3.1:8b`). */
export const describeTargets = (targets: readonly ModelTarget[]): string => targets.map(targetLabel).join(", ");

import type { GatewaySettings } from "../settings.ts";
import type { ModelTarget } from "./provider.ts";

/** The configured models in order: `model.*` (named by the turn settings) first, then `model.fallbacks`. */
export function configuredTargets(s: Pick<GatewaySettings, "turn" | "models" | "anthropic">): ModelTarget[] {
  const withEndpoint = (t: ModelTarget): ModelTarget =>
    t.provider === "anthropic" && s.anthropic.baseURL ? { ...t, baseURL: s.anthropic.baseURL } : t;
  return [
    withEndpoint({ provider: "anthropic", ...s.models?.primary, name: s.turn.model }),
    ...(s.models?.fallbacks ?? []).map(withEndpoint),
  ];
}

/** True when the config names nothing but Claude models (the gateway then talks to Claude as it always has). */
export const claudeOnly = (targets: readonly ModelTarget[]): boolean =>
  targets.length === 1 && targets[0]!.provider === "anthropic";

interface EndpointConfig {
  readonly provider?: ModelTarget["provider"];
  readonly baseUrl?: string;
  readonly apiKey?: string;
  readonly toolCalls?: ModelTarget["toolCalls"];
}

const endpointOf = (c: EndpointConfig): Omit<ModelTarget, "name"> => ({
  provider: c.provider ?? "anthropic",
  ...(c.baseUrl ? { baseURL: c.baseUrl } : {}),
  ...(c.apiKey ? { apiKey: c.apiKey } : {}),
  ...(c.toolCalls ? { toolCalls: c.toolCalls } : {}),
});

/** #35: config `model.provider` / `baseUrl` / `apiKey` / `toolCalls` / `fallbacks` as settings; nothing for a Claude-only config. */
export function modelsFromConfig(
  model: EndpointConfig & { readonly fallbacks?: readonly (EndpointConfig & { readonly name: string })[] },
): Pick<GatewaySettings, "models"> {
  if (model.provider === undefined && !model.fallbacks?.length && !model.baseUrl) return {};
  return {
    models: {
      primary: endpointOf(model),
      fallbacks: (model.fallbacks ?? []).map((f) => ({ ...endpointOf(f), name: f.name })),
    },
  };
}

/** `model.baseUrl` when the configured model is Claude's (its endpoint, e.g. a proxy). */
export const claudeBaseUrl = (model: EndpointConfig): string | undefined =>
  (model.provider ?? "anthropic") === "anthropic" ? model.baseUrl : undefined;

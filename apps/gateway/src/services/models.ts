import type { ModelStreamer } from "../agent/run-turn.ts";
import { createAuthResolver, type AuthResolver } from "../auth/resolve.ts";
import type { AuthStore } from "../auth/store.ts";
import type { EnvLike } from "../auth/types.ts";
import { createAnthropicProvider } from "../model/anthropic-provider.ts";
import { createModelCatalog } from "../model/catalog.ts";
import { createModelChain } from "../model/chain.ts";
import type { ModelClientOptions } from "../model/client.ts";
import { createChatCompletionsProvider } from "../model/openai/provider.ts";
import type { ModelProvider, ModelTarget } from "../model/provider.ts";
import { claudeOnly, configuredTargets } from "../model/targets.ts";
import type { GatewaySettings } from "../settings.ts";

/**
 * The model a session's turn talks to: the configured client, or one per pinned profile (made on
 * first use). A transport given by the caller (tests) answers every session. With other providers
 * or fallbacks configured (#35), each is the chain of the configured models (model/chain.ts).
 */
export function modelsByProfile(o: {
  readonly settings: GatewaySettings;
  readonly auth: AuthResolver;
  readonly authStore: AuthStore;
  readonly env: EnvLike;
  readonly given?: ModelStreamer;
}): (profile: string | undefined) => ModelStreamer {
  const { settings } = o;
  const targets = configuredTargets(settings);
  const chatProviders = chatProvidersOf(settings);
  const catalog = createModelCatalog(targets, (t, signal) => chatProviders(t).listModels(signal));
  // Claude alone: the client as it always was; else the chain, Claude (if configured) through the same client.
  const served = (claudeOptions: ModelClientOptions): ModelStreamer => {
    const claude = createAnthropicProvider(claudeOptions);
    if (claudeOnly(targets)) return claude;
    return createModelChain({
      targets,
      providerOf: (t) => (t.provider === "anthropic" ? claude : chatProviders(t)),
      resolve: (name, signal) => catalog.resolve(name, signal),
    });
  };
  const defaultModel: ModelStreamer =
    o.given ??
    served({
      auth: o.auth,
      model: settings.turn.model,
      maxTokens: settings.turn.maxTokens,
      baseURL: settings.anthropic.baseURL,
      timeoutMs: settings.anthropic.timeoutMs,
    });
  const pinnedModels = new Map<string, ModelStreamer>();
  return (profile) => {
    if (!profile || o.given) return defaultModel;
    let m = pinnedModels.get(profile);
    if (!m) {
      const pinned = createAuthResolver({
        store: o.authStore,
        profileOrder: settings.anthropic.profileOrder,
        env: o.env,
        pinnedProfile: profile,
      });
      m = served({
        auth: pinned,
        model: settings.turn.model,
        maxTokens: settings.turn.maxTokens,
        baseURL: settings.anthropic.baseURL,
      });
      pinnedModels.set(profile, m);
    }
    return m;
  };
}

/** One Chat Completions provider per endpoint, key and tool-call mode, made on first use. */
export function chatProvidersOf(settings: Pick<GatewaySettings, "anthropic">): (t: ModelTarget) => ModelProvider {
  const made = new Map<string, ModelProvider>();
  return (t) => {
    const key = JSON.stringify([t.baseURL, t.apiKey ?? "", t.toolCalls ?? "native"]);
    let p = made.get(key);
    if (!p) {
      p = createChatCompletionsProvider(t, { timeoutMs: settings.anthropic.timeoutMs });
      made.set(key, p);
    }
    return p;
  };
}

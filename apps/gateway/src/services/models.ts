import type { ModelStreamer } from "../agent/run-turn.ts";
import { createAuthResolver, type AuthResolver } from "../auth/resolve.ts";
import type { AuthStore } from "../auth/store.ts";
import type { EnvLike } from "../auth/types.ts";
import { createModelClient } from "../model/client.ts";
import type { GatewaySettings } from "../settings.ts";

/**
 * The model a session's turn talks to: the configured client, or one per pinned profile (made on
 * first use). A transport given by the caller (tests) answers every session.
 */
export function modelsByProfile(o: {
  readonly settings: GatewaySettings;
  readonly auth: AuthResolver;
  readonly authStore: AuthStore;
  readonly env: EnvLike;
  readonly given?: ModelStreamer;
}): (profile: string | undefined) => ModelStreamer {
  const { settings } = o;
  const defaultModel: ModelStreamer =
    o.given ??
    createModelClient({
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
      m = createModelClient({
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

/**
 * `@anthropic-ai/sdk`, imported on first use: it costs ~100 ms to import, which a CLI command or a
 * gateway that is not answering yet should not pay. The gateway starts the import once it is ready
 * (`loadAnthropicSdk()`), so the first turn normally finds it loaded.
 */
type AnthropicSdk = typeof import("@anthropic-ai/sdk");

let loading: Promise<AnthropicSdk> | undefined;
let loaded: AnthropicSdk | undefined;

export function loadAnthropicSdk(): Promise<AnthropicSdk> {
  loading ??= import("@anthropic-ai/sdk").then((sdk) => (loaded = sdk));
  return loading;
}

/** The SDK if something already loaded it; an error thrown before that cannot be one of its errors. */
export function loadedAnthropicSdk(): AnthropicSdk | undefined {
  return loaded;
}

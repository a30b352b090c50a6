import { knownModels } from "./capabilities.ts";
import { createModelClient, type ModelClientOptions } from "./client.ts";
import { DEFAULT_ANTHROPIC_BASE_URL } from "./sdk-client.ts";
import type { ModelProvider } from "./provider.ts";

/**
 * The Claude API as a model provider: the existing client (`@anthropic-ai/sdk`, auth profiles,
 * rotation, retry-after waits) unchanged; its models are those of the capability table.
 */
export function createAnthropicProvider(options: ModelClientOptions): ModelProvider {
  const client = createModelClient(options);
  return {
    kind: "anthropic",
    endpoint: options.baseURL ?? DEFAULT_ANTHROPIC_BASE_URL,
    streamMessage: (params, opts) => client.streamMessage(params, opts),
    listModels: async () => knownModels(),
  };
}

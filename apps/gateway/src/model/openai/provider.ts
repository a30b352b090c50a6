import type OpenAI from "openai";
import type { Message } from "@anthropic-ai/sdk/resources/messages/messages";
import type { ModelRequest } from "../../agent/request.ts";
import { ModelError } from "../errors.ts";
import { sleepUnlessAborted } from "../sleep.ts";
import { targetLabel, type ModelProvider, type ModelTarget } from "../provider.ts";
import { toChatRequest } from "./chat-request.ts";
import { collectChatStream } from "./chat-response.ts";
import { classifyChatError, type OpenAiSdk } from "./errors.ts";

let loading: Promise<OpenAiSdk> | undefined;
/** `openai`, imported on first use: a gateway on Claude alone never loads it. */
const loadOpenAiSdk = (): Promise<OpenAiSdk> => (loading ??= import("openai"));

/**
 * Sent when the config gives no key: local servers (Ollama, vLLM without --api-key, llama.cpp) need
 * none, but the client requires one; Ollama's docs use "ollama" the same way.
 */
const NO_KEY = "no-key";

export interface ChatProviderOptions {
  readonly fetch?: typeof globalThis.fetch;
  readonly timeoutMs?: number;
  /** Tries again after a 5xx, a connection error or a reply that broke off (default 1), as the Claude client does. */
  readonly transientRetries?: number;
  /** Pause before such a retry (default 1000 ms). */
  readonly transientDelayMs?: number;
}

/**
 * A model provider for an OpenAI-compatible Chat Completions endpoint, through the official
 * `openai` client (docs/models.md says why). Every client option is given, so nothing is read from
 * OPENAI_* environment variables; the client's retries are off (an outage moves the turn to the
 * next configured model: model/chain.ts).
 */
export function createChatCompletionsProvider(target: ModelTarget, options: ChatProviderOptions = {}): ModelProvider {
  const endpoint = (target.baseURL ?? "").replace(/\/+$/, "");
  if (!endpoint)
    throw new Error(
      `model ${targetLabel(target)} has no baseUrl; set model.baseUrl (e.g. http://127.0.0.1:11434/v1 for Ollama)`,
    );
  const mode = target.toolCalls ?? "native";
  const who = `the OpenAI-compatible endpoint ${endpoint} (model ${target.name})`;
  let client: Promise<OpenAI> | undefined;
  const clientOf = () =>
    (client ??= loadOpenAiSdk().then(
      ({ default: OpenAIClient }) =>
        new OpenAIClient({
          apiKey: target.apiKey ?? NO_KEY,
          baseURL: endpoint,
          organization: null,
          project: null,
          webhookSecret: null,
          maxRetries: 0,
          logLevel: "off",
          defaultHeaders: {},
          ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
          ...(options.fetch ? { fetch: options.fetch } : {}),
        }),
    ));

  const fail = async (err: unknown, signal?: AbortSignal): Promise<never> => {
    if (signal?.aborted) throw new ModelError("aborted", "The model call was cancelled.", { cause: err });
    const c = classifyChatError(err, who, await loadOpenAiSdk());
    throw new ModelError(c.kind, c.message, {
      status: c.status,
      requestId: c.requestId,
      retryAfterSeconds: c.retryAfterMs !== undefined ? Math.ceil(c.retryAfterMs / 1000) : undefined,
      cause: err,
    });
  };

  return {
    kind: "openai-compatible",
    endpoint,
    async streamMessage(params: ModelRequest, opts): Promise<Message> {
      const request = toChatRequest(params, mode);
      for (let retriesLeft = options.transientRetries ?? 1; ; retriesLeft--) {
        let streamed = false;
        const collector = collectChatStream(mode, (text) => {
          streamed = true;
          opts.onText?.(text);
        });
        try {
          const stream = await (await clientOf()).chat.completions.create(request, {
            ...(opts.signal ? { signal: opts.signal } : {}),
          });
          for await (const chunk of stream) collector.push(chunk);
          return collector.message();
        } catch (err) {
          const c = opts.signal?.aborted ? undefined : classifyChatError(err, who, await loadOpenAiSdk());
          if (!c?.transient || retriesLeft <= 0) return fail(err, opts.signal);
          // Made again whole: nothing ran from a reply that never completed; its text is withdrawn first.
          if (streamed) opts.onDiscard?.({ reason: c.message });
          await sleepUnlessAborted(options.transientDelayMs ?? 1000, opts.signal);
          if (opts.signal?.aborted) return fail(err, opts.signal);
        }
      }
    },
    async listModels(signal) {
      try {
        const page = await (await clientOf()).models.list(signal ? { signal } : {});
        return page.data.map((m) => m.id);
      } catch (err) {
        return fail(err, signal);
      }
    },
  };
}

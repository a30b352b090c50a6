import type { Message } from "@anthropic-ai/sdk/resources/messages/messages";
import type { ModelStreamer } from "../agent/run-turn.ts";
import type { ModelRequest } from "../agent/request.ts";
import { withoutThinking } from "../agent/messages.ts";
import { modelCapabilities } from "./capabilities.ts";
import { ModelError } from "./errors.ts";
import { targetLabel, type ModelProvider, type ModelTarget } from "./provider.ts";

/** A model of the chain gave way to the next: what failed, why, and what takes the turn. */
export interface FallbackEvent {
  readonly from: string;
  readonly to: string;
  /** The failure's kind (overloaded, rate_limited, network, api). */
  readonly reason: string;
  readonly message: string;
}

/** Failures that move a request to the next configured model: the provider is down or limiting. */
const OUTAGE_KINDS = new Set(["overloaded", "rate_limited", "network", "api", "credentials_cooling_down"]);

/** How long a model that failed that way is skipped (its retry-after when longer). */
const DEFAULT_COOLDOWN_MS = 60_000;

export interface ModelChainOptions {
  /** The configured models in order: `model.*` first, then `model.fallbacks`. */
  readonly targets: readonly ModelTarget[];
  /** The provider serving a target (one per endpoint; made once). */
  readonly providerOf: (target: ModelTarget) => ModelProvider;
  /** The target for a model name not configured (a `/model` switch): the catalog's answer. */
  readonly resolve?: (name: string, signal?: AbortSignal) => Promise<ModelTarget | undefined>;
  readonly now?: () => number;
}

export type ChainStreamer = ModelStreamer & {
  streamMessage(
    params: ModelRequest,
    options: Parameters<ModelStreamer["streamMessage"]>[1] & { onFallback?: (e: FallbackEvent) => void },
  ): Promise<Message>;
};

/**
 * The model a turn talks to: the requested model's provider first, then each other configured
 * model in order. A request that fails with an outage or a rate limit (after the provider's own
 * retries and credential rotation) is made again, whole, with the next model; that model then
 * answers the following requests too until the failed one's cooldown is over, so a turn does not
 * go back and forth. Other failures (a bad request, a rejected key, a cancellation) end the call.
 */
export function createModelChain(o: ModelChainOptions): ChainStreamer {
  const now = o.now ?? Date.now;
  const coolingUntil = new Map<string, number>();

  const orderFor = async (
    model: string,
    signal?: AbortSignal,
  ): Promise<{ asked: ModelTarget; order: ModelTarget[] }> => {
    // A name no endpoint offers goes to the first configured provider, which says it does not know it.
    const first = o.targets.find((t) => t.name === model) ??
      (await o.resolve?.(model, signal)) ?? { ...o.targets[0]!, name: model };
    const rest = o.targets.filter((t) => targetLabel(t) !== targetLabel(first));
    const all = [first, ...rest];
    const up = all.filter((t) => (coolingUntil.get(targetLabel(t)) ?? 0) <= now());
    // Every one cooling down: try them all anyway, in order (the outage may be over).
    return { asked: first, order: up.length ? up : all };
  };

  return {
    async streamMessage(params, opts) {
      const { asked, order } = await orderFor(params.model, opts.signal);
      // The asked model failed moments ago: the turn is told that another answers, and why.
      if (order[0] !== asked)
        opts.onFallback?.({
          from: targetLabel(asked),
          to: targetLabel(order[0]!),
          reason: "cooling_down",
          message: `${targetLabel(asked)} failed with an outage or a rate limit recently and is skipped until ${new Date(coolingUntil.get(targetLabel(asked)) ?? now()).toISOString()}`,
        });
      for (const [i, target] of order.entries()) {
        let streamed = false;
        const onText = (text: string) => {
          streamed = true;
          opts.onText?.(text);
        };
        try {
          const request = target === asked ? params : retarget(params, target, asked);
          const answer = await o.providerOf(target).streamMessage(request, { ...opts, onText });
          opts.onAnswer?.(targetLabel(target));
          return answer;
        } catch (err) {
          const kind = err instanceof ModelError ? err.kind : undefined;
          const next = order[i + 1];
          if (!kind || !OUTAGE_KINDS.has(kind) || !next || opts.signal?.aborted) throw err;
          const retryAfterMs =
            err instanceof ModelError && err.retryAfterSeconds !== undefined ? err.retryAfterSeconds * 1000 : 0;
          coolingUntil.set(targetLabel(target), now() + Math.max(DEFAULT_COOLDOWN_MS, retryAfterMs));
          // The next model answers anew: text the failed one streamed is withdrawn first.
          if (streamed) opts.onDiscard?.({ reason: (err as Error).message });
          opts.onFallback?.({
            from: targetLabel(target),
            to: targetLabel(next),
            reason: kind,
            message: (err as Error).message,
          });
        }
      }
      throw new Error("unreachable: the model chain is never empty");
    },
  };
}

/**
 * The request for another model than it was built for (`asked`): its name, max_tokens within the
 * model's limit, and, between two Claude models, nothing tied to the first (thinking blocks are
 * signed for the model that wrote them; thinking and effort settings are per model), so the
 * model's defaults apply. Thinking blocks in a request built for a non-Claude model can only be the
 * Claude fallback's own (earlier rounds of this tool loop), which it needs back as they were.
 */
function retarget(params: ModelRequest, target: ModelTarget, asked: ModelTarget): ModelRequest {
  const caps = target.provider === "anthropic" ? modelCapabilities(target.name) : undefined;
  const renamed = {
    ...params,
    model: target.name,
    max_tokens: caps ? Math.min(params.max_tokens, caps.maxOutput) : params.max_tokens,
  };
  if (asked.provider !== "anthropic" || target.provider !== "anthropic") return renamed;
  const { thinking: _t, output_config: _o, ...rest } = renamed;
  return { ...rest, messages: withoutThinking(params.messages) };
}

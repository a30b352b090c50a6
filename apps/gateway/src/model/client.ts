import type Anthropic from "@anthropic-ai/sdk";
import type { Message, MessageCreateParamsBase } from "@anthropic-ai/sdk/resources/messages/messages";
import { AuthError, type AuthResolver } from "../auth/resolve.ts";
import type { FailureReason, ResolvedCredential, RotationEvent } from "../auth/types.ts";
import { classifyModelError, ModelError } from "./errors.ts";
import { buildSdkClient, DEFAULT_ANTHROPIC_BASE_URL, OAUTH_BETA } from "./sdk-client.ts";
import { sleepUnlessAborted } from "./sleep.ts";

/**
 * Transport to the Anthropic Messages API with auth profiles: picks a credential, streams the
 * call, and on auth / rate-limit / overload / billing errors cools the profile down and retries
 * with the next one. Building the request (system prompt, cache_control, tools, history) is the
 * agent loop's job; this only moves it and maps failures to ModelError.
 */
export interface ModelClientOptions {
  auth: AuthResolver;
  model: string;
  maxTokens: number;
  /** Defaults to https://api.anthropic.com (the config adapter passes ANTHROPIC_BASE_URL / our override). */
  baseURL?: string;
  fetch?: typeof globalThis.fetch;
  timeoutMs?: number;
  /** Upper bound on HTTP attempts per call, across rotations and transient retries (default 4). */
  maxAttempts?: number;
  /** Retries with the same credential after a 5xx / connection error (default 1). */
  transientRetries?: number;
  /** Pause before a transient retry (default 1000 ms). */
  transientDelayMs?: number;
  /**
   * With no other credential to rotate to, a 429 / 529 (or an overload mid-stream before any output)
   * waits out `retry-after` — at most this long (default 60 000 ms) — and retries the same credential.
   */
  maxRetryWaitMs?: number;
  /** Same-credential retries after a 429 / 529 (default 2). */
  rateLimitRetries?: number;
}

/** Message params without model / max_tokens (the client's defaults apply unless given). */
export type StreamParams = Omit<MessageCreateParamsBase, "model" | "max_tokens" | "stream"> &
  Partial<Pick<MessageCreateParamsBase, "model" | "max_tokens">>;

export interface StreamOptions {
  /** Each text delta as it arrives. */
  onText?: (delta: string) => void;
  signal?: AbortSignal;
  /** Extra `anthropic-beta` values; merged with the OAuth beta for token profiles. */
  betas?: string[];
  /** Called for every rotation during this call (in addition to the resolver's onRotate). */
  onRotate?: (event: RotationEvent) => void;
  /** Called before waiting out a `retry-after` on the same credential (to show the wait as status). */
  onRetry?: (info: { seconds: number; reason: string }) => void;
  /**
   * Called before a call that failed after streaming some text is made again: the caller withdraws
   * the partial text (the retry streams the whole message anew), so the user never sees it twice.
   */
  onDiscard?: (info: { reason: string }) => void;
}

export interface ModelClient {
  /** Streams one Messages API call and resolves with the final Message. Throws ModelError. */
  streamMessage(params: StreamParams, options?: StreamOptions): Promise<Message>;
  /** The credential the next call would start with (throws ModelError when there is none). */
  currentCredential(): ResolvedCredential;
}

interface Attempted {
  profileId: string;
  reason: FailureReason;
}

export function createModelClient(options: ModelClientOptions): ModelClient {
  const { auth, model, maxTokens } = options;
  const maxAttempts = options.maxAttempts ?? 4;
  const transientRetries = options.transientRetries ?? 1;
  const transientDelayMs = options.transientDelayMs ?? 1000;
  const maxRetryWaitMs = options.maxRetryWaitMs ?? 60_000;
  const rateLimitRetries = options.rateLimitRetries ?? 2;
  const endpoint = options.baseURL ?? DEFAULT_ANTHROPIC_BASE_URL;
  const clients = new Map<string, { secret: string; client: Anthropic }>();

  async function clientFor(cred: ResolvedCredential): Promise<Anthropic> {
    const cached = clients.get(cred.profileId);
    if (cached && cached.secret === cred.secret) return cached.client;
    const client = await buildSdkClient(cred, {
      baseURL: options.baseURL,
      fetch: options.fetch,
      timeoutMs: options.timeoutMs,
    });
    clients.set(cred.profileId, { secret: cred.secret, client });
    return client;
  }

  function resolveOrThrow(): ResolvedCredential {
    try {
      return auth.resolve();
    } catch (e) {
      if (e instanceof AuthError) {
        if (e.kind === "all_cooling_down" && e.availableAt) {
          const retryAfterSeconds = Math.max(0, Math.ceil((e.availableAt.getTime() - Date.now()) / 1000));
          throw new ModelError("credentials_cooling_down", e.message, { retryAfterSeconds, cause: e });
        }
        throw new ModelError("no_credentials", e.message, { cause: e });
      }
      throw e;
    }
  }

  function otherUsable(cred: ResolvedCredential): boolean {
    try {
      return auth
        .candidates()
        .some((c) => c.profileId !== cred.profileId && (!c.cooldownUntil || c.cooldownUntil.getTime() <= Date.now()));
    } catch {
      return false;
    }
  }

  function betaHeader(cred: ResolvedCredential, extra: string[] = []): Record<string, string> {
    const betas = [...(cred.type === "token" ? [OAUTH_BETA] : []), ...extra];
    return betas.length ? { "anthropic-beta": [...new Set(betas)].join(",") } : {};
  }

  async function streamMessage(params: StreamParams, opts: StreamOptions = {}): Promise<Message> {
    let cred = resolveOrThrow();
    const rotatedAway: Attempted[] = [];
    let transientLeft = transientRetries;
    let waitLeft = rateLimitRetries;

    for (let attempt = 1; ; attempt++) {
      let streamedText = false;
      try {
        const stream = (await clientFor(cred)).messages.stream(
          { ...params, model: params.model ?? model, max_tokens: params.max_tokens ?? maxTokens },
          { headers: betaHeader(cred, opts.betas), ...(opts.signal ? { signal: opts.signal } : {}) },
        );
        stream.on("text", (delta) => {
          streamedText = true;
          opts.onText?.(delta);
        });
        const message = await stream.finalMessage();
        auth.succeed(cred);
        return message;
      } catch (err) {
        if (opts.signal?.aborted)
          throw new ModelError("aborted", "The model call was cancelled.", { profileId: cred.profileId, cause: err });
        const c = classifyModelError(err, cred, endpoint);
        const details = {
          status: c.status,
          profileId: cred.profileId,
          requestId: c.requestId,
          retryAfterSeconds: c.retryAfterMs !== undefined ? Math.ceil(c.retryAfterMs / 1000) : undefined,
          cause: err,
        };

        // A call that failed mid-stream (an `error` event after some deltas) is made again whole, like
        // one that failed before any output: nothing can have run from a message that never completed
        // (tools run only once the final message is in), and the partial text is withdrawn first.
        const discardPartial = () => {
          if (streamedText) opts.onDiscard?.({ reason: c.message });
        };
        // One credential (nothing else usable): a rate limit or an overload is waited out on the same
        // key, following retry-after, before anything is put on cooldown.
        if (
          (c.rotate === "rate_limit" || c.rotate === "overloaded") &&
          waitLeft > 0 &&
          attempt < maxAttempts &&
          !otherUsable(cred)
        ) {
          const waitMs = Math.min(c.retryAfterMs ?? (c.rotate === "overloaded" ? 2_000 : 10_000), maxRetryWaitMs);
          if (c.retryAfterMs === undefined || c.retryAfterMs <= maxRetryWaitMs) {
            waitLeft--;
            discardPartial();
            opts.onRetry?.({
              seconds: Math.ceil(waitMs / 1000),
              reason: c.rotate === "overloaded" ? "Anthropic is overloaded" : "rate limited",
            });
            await sleepUnlessAborted(waitMs, opts.signal);
            if (opts.signal?.aborted)
              throw new ModelError("aborted", "The model call was cancelled.", {
                profileId: cred.profileId,
                cause: err,
              });
            continue;
          }
        }
        if (c.rotate) {
          const next = auth.fail(
            cred,
            c.rotate,
            { retryAfterMs: c.retryAfterMs, message: c.apiMessage ?? c.message },
            opts.onRotate,
          );
          if (next && attempt < maxAttempts) {
            discardPartial();
            rotatedAway.push({ profileId: cred.profileId, reason: c.rotate });
            cred = next;
            transientLeft = transientRetries;
            continue;
          }
          const tried = [...rotatedAway, { profileId: cred.profileId, reason: c.rotate }];
          const suffix =
            !next && tried.length > 1
              ? ` No other Anthropic credential is available (tried ${tried.map((t) => `${t.profileId}: ${t.reason}`).join(", ")}).`
              : "";
          throw new ModelError(c.kind, c.message + suffix + attemptsNote(attempt), details);
        }
        if (c.transient && transientLeft > 0 && attempt < maxAttempts) {
          transientLeft--;
          discardPartial();
          await sleepUnlessAborted(transientDelayMs, opts.signal);
          continue;
        }
        throw new ModelError(c.kind, c.message + attemptsNote(attempt), details);
      }
    }
  }

  return {
    streamMessage,
    currentCredential: resolveOrThrow,
  };
}

/** Told with the final error when the call was retried: the user knows it was not a first failure. */
const attemptsNote = (attempts: number): string => (attempts > 1 ? ` (gave up after ${attempts} attempts)` : "");

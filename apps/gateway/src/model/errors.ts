import type { FailureReason, ResolvedCredential } from "../auth/types.ts";
import { loadedAnthropicSdk } from "./sdk.ts";

/**
 * What went wrong with a model call, in terms the agent loop can act on:
 * - context_too_long: trim/summarize history and retry
 * - aborted: the caller's signal fired
 * - everything else: show `message` to the user (it names the profile and the command to run)
 */
export type ModelErrorKind =
  | "overloaded"
  | "rate_limited"
  | "auth"
  | "setup_token_rejected"
  | "token_expired"
  | "billing"
  | "context_too_long"
  | "no_credentials"
  | "credentials_cooling_down"
  | "aborted"
  | "network"
  | "invalid_request"
  | "api";

export class ModelError extends Error {
  readonly kind: ModelErrorKind;
  readonly status: number | undefined;
  readonly profileId: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  /** Anthropic's request id, for support tickets. */
  readonly requestId: string | undefined;

  constructor(
    kind: ModelErrorKind,
    message: string,
    details: {
      status?: number;
      profileId?: string;
      retryAfterSeconds?: number;
      requestId?: string;
      cause?: unknown;
    } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "ModelError";
    this.kind = kind;
    this.status = details.status;
    this.profileId = details.profileId;
    this.retryAfterSeconds = details.retryAfterSeconds;
    this.requestId = details.requestId;
  }
}

export interface ClassifiedError {
  kind: ModelErrorKind;
  /** User-facing text. */
  message: string;
  /** Set when the credential should cool down and the call move to the next profile. */
  rotate?: FailureReason;
  /** Worth one more try with the same credential (5xx, connection reset). */
  transient?: boolean;
  retryAfterMs?: number;
  status?: number;
  requestId?: string;
  /** Anthropic's own error text (no secrets in it). */
  apiMessage?: string;
}

const API_KEY_COMMAND = "`openassistant auth anthropic api-key`";
const SETUP_TOKEN_COMMAND = "`openassistant auth anthropic setup-token`";

function parseRetryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = headers?.get("retry-after-ms");
  if (ms && Number.isFinite(Number(ms))) return Number(ms);
  const value = headers?.get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

function credentialNoun(cred: ResolvedCredential): string {
  const what = cred.type === "token" ? "setup-token" : "API key";
  return cred.source === "env"
    ? `The ${what} in ${cred.profileId.slice(4)}`
    : `The ${what} for profile ${cred.profileId}`;
}

/**
 * Maps an SDK error to what the gateway does about it, by HTTP status and `error.type`
 * (https://platform.claude.com/docs/en/api/errors); message text is read only for the setup-token
 * rejections, which share their type with other errors, and for "prompt is too long".
 */
export function classifyModelError(
  err: unknown,
  cred: ResolvedCredential,
  endpoint = "https://api.anthropic.com",
): ClassifiedError {
  const sdk = loadedAnthropicSdk();
  if ((sdk && err instanceof sdk.APIUserAbortError) || (err instanceof Error && err.name === "AbortError")) {
    return { kind: "aborted", message: "The model call was cancelled." };
  }
  if (sdk && err instanceof sdk.APIConnectionError) {
    return {
      kind: "network",
      message: `Could not reach the Anthropic API at ${endpoint} (${err.message}). Check the network connection (and ANTHROPIC_BASE_URL / OPENASSISTANT_ANTHROPIC_BASE_URL if set) and try again.`,
      transient: true,
    };
  }
  if (!sdk || !(err instanceof sdk.APIError)) {
    const text = err instanceof Error ? err.message : String(err);
    return { kind: "api", message: `The model call failed unexpectedly: ${text}` };
  }

  const status = typeof err.status === "number" ? err.status : undefined;
  // Mid-stream errors (an SSE `error` event after a 200) carry no status, only the error body.
  const body = (err.error ?? undefined) as { error?: { type?: string; details?: { error_code?: string } } } | undefined;
  const type = err.type ?? body?.error?.type ?? undefined;
  const errorCode = body?.error?.details?.error_code;
  const apiMessage = err.apiMessage ?? (typeof err.error === "object" ? undefined : String(err.error));
  const text = apiMessage ?? err.message;
  const base = { status, apiMessage: apiMessage ?? undefined, requestId: err.requestID ?? undefined };
  const who = credentialNoun(cred);

  // The forms a rejected setup-token has taken on the public record: 400 "only authorized for use with
  // Claude Code", 401 "OAuth authentication is currently not supported", and a bare 400 "Error".
  const tokenRejected =
    /only authorized for use with Claude Code/i.test(text) ||
    (cred.type === "token" &&
      (/OAuth authentication is currently not supported/i.test(text) || (status === 400 && text.trim() === "Error")));
  if (tokenRejected) {
    return {
      ...base,
      kind: "setup_token_rejected",
      rotate: "auth",
      message: `Anthropic only allows Claude setup-tokens inside Claude Code, so ${cred.profileId} cannot be used here; add an API key with ${API_KEY_COMMAND}.`,
    };
  }
  if (/oauth token has expired/i.test(text)) {
    return {
      ...base,
      kind: "token_expired",
      rotate: "auth",
      message: `${who} has expired; run \`claude setup-token\` and then ${SETUP_TOKEN_COMMAND}, or add an API key with ${API_KEY_COMMAND}.`,
    };
  }
  if (type === "billing_error" || status === 402 || /credit balance/i.test(text)) {
    return {
      ...base,
      kind: "billing",
      rotate: "billing",
      message: `Anthropic refused ${cred.profileId} for a billing or spend-limit reason (${text}); the request is not retried. Check Plans & Billing and the workspace spend limits at https://console.anthropic.com, or add another key with ${API_KEY_COMMAND}.`,
    };
  }
  if (status === 401 || type === "authentication_error") {
    const fix =
      cred.type === "token"
        ? `${SETUP_TOKEN_COMMAND} again, or add an API key with ${API_KEY_COMMAND}`
        : API_KEY_COMMAND;
    return { ...base, kind: "auth", rotate: "auth", message: `${who} was rejected (${text}); run ${fix}.` };
  }
  if (status === 403 || type === "permission_error") {
    return {
      ...base,
      kind: "auth",
      rotate: "auth",
      message: `${who} is not permitted to make this request (${text}); use a key that is, with ${API_KEY_COMMAND}.`,
    };
  }
  if (status === 429 || type === "rate_limit_error") {
    const retryAfterMs = parseRetryAfterMs(err.headers);
    const when =
      retryAfterMs !== undefined ? `retry after ${Math.ceil(retryAfterMs / 1000)} s` : "try again in a minute";
    return {
      ...base,
      kind: "rate_limited",
      rotate: "rate_limit",
      retryAfterMs,
      message: `Anthropic's rate limit was reached for ${cred.profileId}; ${when}.`,
    };
  }
  if (status === 529 || type === "overloaded_error") {
    return {
      ...base,
      kind: "overloaded",
      rotate: "overloaded",
      retryAfterMs: parseRetryAfterMs(err.headers),
      message: "Anthropic is overloaded, try again in a minute.",
    };
  }
  if (
    status === 413 ||
    type === "request_too_large" ||
    ((status === 400 || type === "invalid_request_error") &&
      /prompt is too long|too many (input )?tokens|context (window|length)/i.test(text))
  ) {
    return {
      ...base,
      kind: "context_too_long",
      message: "The conversation is too long for the model's context window; older messages need to be trimmed.",
    };
  }
  if ((status !== undefined && status >= 500) || type === "api_error" || type === "timeout_error") {
    return {
      ...base,
      kind: "api",
      transient: true,
      message: `The Anthropic API had an internal error (${status ?? type}${text ? `: ${text}` : ""}); try again shortly.`,
    };
  }
  if (status === 404 || type === "not_found_error") {
    return {
      ...base,
      kind: "invalid_request",
      message: `Anthropic does not know this model or endpoint (${text}); check model.name in the config or /model.`,
    };
  }
  if (status === 400 || type === "invalid_request_error") {
    const code = errorCode ? ` [${errorCode}]` : "";
    return {
      ...base,
      kind: "invalid_request",
      message: `Anthropic rejected the request${code}: ${text}${base.requestId ? ` (request id ${base.requestId})` : ""}`,
    };
  }
  return {
    ...base,
    kind: "api",
    message: `The Anthropic API returned an error${status ? ` (${status})` : ""}: ${text}`,
  };
}

import type { ClassifiedError } from "../errors.ts";

/** The `openai` package, imported on first use (like the Anthropic SDK: model/sdk.ts). */
export type OpenAiSdk = typeof import("openai");

/**
 * An `openai` client error as what the gateway does about it (the kinds of model/errors.ts), by HTTP
 * status and `error.code` (https://platform.openai.com/docs/guides/error-codes). `who` names the
 * configured model and endpoint; the messages never carry the key.
 */
export function classifyChatError(err: unknown, who: string, sdk: OpenAiSdk): ClassifiedError {
  const { APIConnectionError, APIError, APIUserAbortError } = sdk;
  if (err instanceof APIUserAbortError || (err instanceof Error && err.name === "AbortError"))
    return { kind: "aborted", message: "The model call was cancelled." };
  if (err instanceof APIConnectionError)
    return {
      kind: "network",
      transient: true,
      message: `Could not reach ${who} (${err.message}). Check that the server runs and model.baseUrl is right (\`openassistant doctor\` tries it).`,
    };
  if (!(err instanceof APIError)) {
    const text = err instanceof Error ? err.message : String(err);
    return { kind: "api", transient: true, message: `The model call to ${who} failed: ${text}` };
  }
  const status = typeof err.status === "number" ? err.status : undefined;
  const code = typeof err.code === "string" ? err.code : undefined;
  const text = (err.error as { message?: string } | undefined)?.message ?? err.message;
  const base = { status, apiMessage: text, requestId: err.requestID ?? undefined };
  if (status === 401 || status === 403 || code === "invalid_api_key")
    return {
      ...base,
      kind: "auth",
      message: `${who} rejected the API key (${text}); check model.apiKey in the config.`,
    };
  if (status === 402)
    return { ...base, kind: "billing", message: `${who} refused the request for a billing reason (${text}).` };
  if (status === 429) {
    const seconds = Number(err.headers?.get("retry-after"));
    return {
      ...base,
      kind: "rate_limited",
      ...(Number.isFinite(seconds) ? { retryAfterMs: seconds * 1000 } : {}),
      message: `${who} is rate limiting requests (${text}); try again ${Number.isFinite(seconds) ? `in ${seconds} s` : "in a minute"}.`,
    };
  }
  if (
    code === "context_length_exceeded" ||
    /maximum context length|context (window|length)|too many tokens/i.test(text)
  )
    return {
      ...base,
      kind: "context_too_long",
      message: "The conversation is too long for the model's context window.",
    };
  // An error chunk after the reply began carries no HTTP status: the reply broke off, try it again.
  if (status === undefined)
    return {
      ...base,
      kind: "api",
      transient: true,
      message: `${who} broke off its reply (${text}); try again shortly.`,
    };
  if (status === 503 || status === 529)
    return {
      ...base,
      kind: "overloaded",
      transient: true,
      message: `${who} is overloaded (${text}); try again shortly.`,
    };
  if (status !== undefined && status >= 500)
    return {
      ...base,
      kind: "api",
      transient: true,
      message: `${who} had an internal error (${status}: ${text}); try again shortly.`,
    };
  if (status === 404 || code === "model_not_found")
    return {
      ...base,
      kind: "invalid_request",
      message: `${who} does not know this model or path (${text}); check model.name and model.baseUrl, or /model.`,
    };
  return { ...base, kind: "invalid_request", message: `${who} rejected the request (${status ?? "error"}: ${text}).` };
}

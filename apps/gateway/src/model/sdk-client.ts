import type Anthropic from "@anthropic-ai/sdk";
import { loadAnthropicSdk } from "./sdk.ts";
import type { ResolvedCredential } from "../auth/types.ts";

export const DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com";
/** Required by the Messages API for Claude setup-tokens (OAuth access tokens). */
export const OAUTH_BETA = "oauth-2025-04-20";

export interface SdkClientOptions {
  baseURL?: string;
  fetch?: typeof globalThis.fetch;
  /** Per-request timeout; the SDK default is 10 minutes. */
  timeoutMs?: number;
}

/**
 * An `@anthropic-ai/sdk` client for one credential, configured only from its arguments.
 *
 * SDK 1.12 reads ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN, ANTHROPIC_LOG,
 * ANTHROPIC_WEBHOOK_SIGNING_KEY, ANTHROPIC_OPEN_TELEMETRY* and ANTHROPIC_CUSTOM_HEADERS from
 * process.env for every option it is not given, so every one of them is given here.
 * 1.12 sends both `apiKey` and `authToken` as `Authorization: Bearer …`; a token additionally
 * needs the OAuth beta header. We identify as the SDK itself (its own User-Agent) and nothing else.
 * Retries are off: the model client decides between retrying and rotating profiles.
 */
export async function buildSdkClient(cred: ResolvedCredential, opts: SdkClientOptions = {}): Promise<Anthropic> {
  const { default: Anthropic } = await loadAnthropicSdk();
  const defaultHeaders: Record<string, string> = cred.type === "token" ? { "anthropic-beta": OAUTH_BETA } : {};
  const client = new Anthropic({
    baseURL: opts.baseURL ?? DEFAULT_ANTHROPIC_BASE_URL,
    ...(cred.type === "token" ? { authToken: cred.secret, apiKey: null } : { apiKey: cred.secret, authToken: null }),
    webhookKey: null,
    defaultHeaders,
    maxRetries: 0,
    logLevel: "warn",
    openTelemetry: false,
    ...(opts.timeoutMs !== undefined ? { timeout: opts.timeoutMs } : {}),
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  // The constructor merges ANTHROPIC_CUSTOM_HEADERS from process.env into defaultHeaders and has
  // no option to skip that; put back exactly our headers (a test guards this against SDK changes).
  (client as unknown as { _options: { defaultHeaders: Record<string, string> } })._options.defaultHeaders =
    defaultHeaders;
  return client;
}

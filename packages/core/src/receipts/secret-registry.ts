import { createRedactor } from "./redact.ts";

/**
 * Every place a credential enters the gateway. Each is registered with the gateway's one
 * `SecretRegistry` where it is read or obtained; `apps/gateway/src/security/credentials.e2e.test.ts`
 * builds one store per entry here (its table is typed by this list, so a new source cannot be
 * added without a case in that test).
 */
export const CREDENTIAL_SOURCES = [
  /** Every value substituted from `${VAR}` in a config file. */
  "config-var",
  /** Config fields marked `.meta({ secret: true })` in the config schema (OpenAPI auth, MCP headers/env/client secret, surface and HTTP tokens). */
  "config-field",
  /** Plugin config values marked secret by the plugin's schema, or under a secret-looking key. */
  "plugin-secret",
  /** `auth-profiles.json` (API keys, setup-tokens) and the ANTHROPIC_* environment variables. */
  "auth-profile",
  /** The HTTP API's bearer token (config or `<data>/http-token`). */
  "http-token",
  /** `<data>/console-key`, which signs console links and logins. */
  "console-key",
  /** `mcp-oauth.json`: MCP OAuth access and refresh tokens and client secrets, also those a refresh obtains. */
  "mcp-oauth",
  /** A chat surface's own credential (the bot token it connects with), from its config section. */
  "surface-token",
  /** `<config>/receipts.key`, the HMAC key of the receipt chain. */
  "receipt-key",
] as const;

export type CredentialSource = (typeof CREDENTIAL_SOURCES)[number];

/** What a credential store needs: somewhere to register what it read or obtained. */
export interface SecretSink {
  add(source: CredentialSource, values: Iterable<string | undefined | null>): void;
}

export interface SecretRegistry extends SecretSink {
  /** Scrubs every value registered so far (and token shapes); stable, so it can be handed out before all secrets are known. */
  readonly redact: (text: string) => string;
  /** The sources that registered at least one value (for diagnostics and tests). */
  sources(): ReadonlySet<CredentialSource>;
}

/**
 * The gateway's secrets, growing as credentials are read or obtained (an MCP token refresh, a
 * profile added while running). The redactor is rebuilt only when a new value arrives.
 */
export function createSecretRegistry(initial: readonly string[] = []): SecretRegistry {
  const values = new Set<string>();
  const seen = new Set<CredentialSource>();
  for (const v of initial) if (typeof v === "string" && v) values.add(v);
  let current = createRedactor([...values]);
  return {
    add(source, incoming) {
      let grew = false;
      for (const v of incoming) {
        if (typeof v !== "string" || v === "") continue;
        seen.add(source);
        if (values.has(v)) continue;
        values.add(v);
        grew = true;
      }
      if (grew) current = createRedactor([...values]);
    },
    redact: (text) => current(text),
    sources: () => seen,
  };
}

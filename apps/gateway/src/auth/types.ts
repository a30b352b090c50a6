/** Auth profile shapes shared by the store, the resolver, the model client and the CLI. */

export type AuthProvider = "anthropic";
export type AuthProfileType = "api_key" | "token";

/** Why a credential was put on cooldown. */
export type FailureReason = "auth" | "rate_limit" | "overloaded" | "billing";

export interface AuthProfile {
  /** "<provider>:<name>", e.g. "anthropic:manual", "anthropic:work". */
  id: string;
  provider: AuthProvider;
  type: AuthProfileType;
  secret: string;
  /** ISO timestamps. */
  createdAt: string;
  lastUsedAt?: string;
  cooldownUntil?: string;
  /** Consecutive failures since the last success; drives the backoff step. */
  failures?: number;
  lastFailureReason?: FailureReason;
}

/** A credential ready to hand to a model client. */
export interface ResolvedCredential {
  /** Profile id, or "env:ANTHROPIC_OAUTH_TOKEN" / "env:ANTHROPIC_API_KEY" for the env fallback. */
  profileId: string;
  source: "profile" | "env";
  type: AuthProfileType;
  secret: string;
}

export interface RotationEvent {
  from: string;
  to: string;
  reason: FailureReason;
  /** ISO time until which `from` is cooling down. */
  cooldownUntil: string;
  /** The provider's error message that caused it (never contains the secret). */
  message?: string;
}

/** Environment variables the resolver looks at; pass `process.env` at the process boundary. */
export type EnvLike = Readonly<Record<string, string | undefined>>;

import type { SecretSink } from "@openassistant/core/receipts";
import { cooldownMs, describeReason } from "./cooldown.ts";
import type { AuthStore } from "./store.ts";
import type { AuthProfile, AuthProvider, EnvLike, FailureReason, ResolvedCredential, RotationEvent } from "./types.ts";

/**
 * Picks the Anthropic credential for a model call and rotates away from failing ones.
 *
 * Order: pinned profile > config order (`config.auth.anthropic.profileOrder`) > the store's
 * preferred order (set by the auth CLI) > remaining profiles in file order > env
 * (`ANTHROPIC_API_KEY` as an API key, then `ANTHROPIC_OAUTH_TOKEN` as a token).
 * Profiles on cooldown are skipped. Cooldowns of profiles are persisted in the store; cooldowns of
 * env credentials live in this resolver only.
 */
export interface AuthResolverOptions {
  store: AuthStore;
  provider?: AuthProvider;
  /** `config.auth.anthropic.profileOrder`; unknown ids are ignored. */
  profileOrder?: readonly string[];
  /** Session/run pin; must name an existing profile. */
  pinnedProfile?: string;
  /** Env fallback source (pass `process.env` at the process boundary). Omit for no env fallback. */
  env?: EnvLike;
  now?: () => number;
  onRotate?: (event: RotationEvent) => void;
  /**
   * Where every credential read is registered for redaction, each time the store is read (a
   * profile added by `openassistant auth` while the gateway runs is redacted from its first use).
   */
  secrets?: SecretSink;
}

export type AuthErrorKind = "no_credentials" | "all_cooling_down" | "pinned_missing";

export class AuthError extends Error {
  constructor(
    readonly kind: AuthErrorKind,
    message: string,
    /** For all_cooling_down: the earliest time a credential becomes usable again. */
    readonly availableAt?: Date,
  ) {
    super(message);
    this.name = "AuthError";
  }
}

export interface FailureInfo {
  retryAfterMs?: number;
  message?: string;
}

export interface AuthResolver {
  /** Every configured credential in resolution order, with its cooldown (if any). */
  candidates(): Array<ResolvedCredential & { cooldownUntil?: Date }>;
  /** The first credential not cooling down; throws AuthError with the command to run otherwise. */
  resolve(): ResolvedCredential;
  /**
   * Puts `cred` on cooldown (growing backoff, persisted for profiles) and returns the next usable
   * credential, emitting a rotation event; null when none is left.
   */
  fail(
    cred: ResolvedCredential,
    reason: FailureReason,
    info?: FailureInfo,
    onRotate?: (e: RotationEvent) => void,
  ): ResolvedCredential | null;
  /** Clears failures/cooldown and records lastUsedAt. */
  succeed(cred: ResolvedCredential): void;
}

/** An API key is tried before a setup-token: Anthropic restricts setup-tokens to its own clients. */
const ENV_SOURCES = [
  { name: "ANTHROPIC_API_KEY", type: "api_key" },
  { name: "ANTHROPIC_OAUTH_TOKEN", type: "token" },
] as const;

/** lastUsedAt is only rewritten when older than this, so a busy gateway does not write per call. */
const LAST_USED_RESOLUTION_MS = 60_000;

export const ADD_CREDENTIAL_HINT =
  "Run `openassistant auth anthropic api-key` to store an Anthropic API key (from https://console.anthropic.com/settings/keys), " +
  "or `openassistant auth anthropic setup-token` to store a token from `claude setup-token`, or set ANTHROPIC_API_KEY.";

export function createAuthResolver(options: AuthResolverOptions): AuthResolver {
  const { store, provider = "anthropic", env, onRotate } = options;
  const now = options.now ?? Date.now;
  const envCooldown = new Map<string, { until: number; failures: number }>();

  function orderedProfiles(): AuthProfile[] {
    const profiles = store.list(provider);
    const byId = new Map(profiles.map((p) => [p.id, p]));
    if (options.pinnedProfile && !byId.has(options.pinnedProfile)) {
      throw new AuthError(
        "pinned_missing",
        `This session is pinned to auth profile "${options.pinnedProfile}", which does not exist in ${store.path}. ` +
          "Run `openassistant auth list` to see the profiles, then re-pin or add it.",
      );
    }
    const ids = [
      ...(options.pinnedProfile ? [options.pinnedProfile] : []),
      ...(options.profileOrder ?? []),
      ...store.preferredOrder(provider),
      ...profiles.map((p) => p.id),
    ];
    const seen = new Set<string>();
    const out: AuthProfile[] = [];
    for (const id of ids) {
      const p = byId.get(id);
      if (!p || seen.has(id)) continue;
      seen.add(id);
      out.push(p);
    }
    return out;
  }

  function candidates(): Array<ResolvedCredential & { cooldownUntil?: Date }> {
    const out: Array<ResolvedCredential & { cooldownUntil?: Date }> = orderedProfiles().map((p) => {
      const c: ResolvedCredential & { cooldownUntil?: Date } = {
        profileId: p.id,
        source: "profile",
        type: p.type,
        secret: p.secret,
      };
      if (p.cooldownUntil) c.cooldownUntil = new Date(p.cooldownUntil);
      return c;
    });
    for (const src of ENV_SOURCES) {
      const value = env?.[src.name]?.trim();
      if (!value) continue;
      const profileId = `env:${src.name}`;
      const c: ResolvedCredential & { cooldownUntil?: Date } = {
        profileId,
        source: "env",
        type: src.type,
        secret: value,
      };
      const cd = envCooldown.get(profileId);
      if (cd) c.cooldownUntil = new Date(cd.until);
      out.push(c);
    }
    options.secrets?.add(
      "auth-profile",
      out.map((c) => c.secret),
    );
    return out;
  }

  function isCooling(c: { cooldownUntil?: Date }): boolean {
    return c.cooldownUntil !== undefined && c.cooldownUntil.getTime() > now();
  }

  function strip(c: ResolvedCredential & { cooldownUntil?: Date }): ResolvedCredential {
    return { profileId: c.profileId, source: c.source, type: c.type, secret: c.secret };
  }

  function resolve(): ResolvedCredential {
    const all = candidates();
    const usable = all.find((c) => !isCooling(c));
    if (usable) return strip(usable);
    if (all.length === 0) {
      throw new AuthError(
        "no_credentials",
        `No Anthropic credentials are configured (looked in ${store.path} and the environment). ${ADD_CREDENTIAL_HINT}`,
      );
    }
    const earliest = new Date(Math.min(...all.map((c) => c.cooldownUntil!.getTime())));
    const list = all.map((c) => `${c.profileId} until ${c.cooldownUntil!.toISOString()}`).join(", ");
    throw new AuthError(
      "all_cooling_down",
      `Every Anthropic credential is cooling down after errors (${list}). Try again after ${earliest.toISOString()}, or add another credential: ${ADD_CREDENTIAL_HINT}`,
      earliest,
    );
  }

  function fail(
    cred: ResolvedCredential,
    reason: FailureReason,
    info: FailureInfo = {},
    onRotateCall?: (e: RotationEvent) => void,
  ): ResolvedCredential | null {
    const at = now();
    let until = at;
    if (cred.source === "env") {
      const escalate = reason === "overloaded" ? 0 : 1;
      const failures = (envCooldown.get(cred.profileId)?.failures ?? 0) + escalate;
      until = at + cooldownMs(failures, info.retryAfterMs, reason);
      envCooldown.set(cred.profileId, { until, failures });
    } else {
      store.update(cred.profileId, (p) => {
        if (reason !== "overloaded") p.failures = (p.failures ?? 0) + 1;
        until = at + cooldownMs(p.failures ?? 1, info.retryAfterMs, reason);
        p.cooldownUntil = new Date(until).toISOString();
        p.lastFailureReason = reason;
      });
    }
    const next = candidates().find((c) => !isCooling(c) && c.profileId !== cred.profileId);
    if (!next) return null;
    const event: RotationEvent = {
      from: cred.profileId,
      to: next.profileId,
      reason,
      cooldownUntil: new Date(until).toISOString(),
    };
    event.message = info.message ?? describeReason(reason);
    onRotate?.(event);
    onRotateCall?.(event);
    return strip(next);
  }

  function succeed(cred: ResolvedCredential): void {
    if (cred.source === "env") {
      envCooldown.delete(cred.profileId);
      return;
    }
    const current = store.get(cred.profileId);
    if (!current) return;
    const stale = !current.lastUsedAt || now() - Date.parse(current.lastUsedAt) > LAST_USED_RESOLUTION_MS;
    if (!stale && !current.failures && !current.cooldownUntil) return;
    store.update(cred.profileId, (p) => {
      p.lastUsedAt = new Date(now()).toISOString();
      delete p.failures;
      delete p.cooldownUntil;
      delete p.lastFailureReason;
    });
  }

  return { candidates, resolve, fail, succeed };
}

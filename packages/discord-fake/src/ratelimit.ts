export interface RouteMatcher {
  method?: string;
  /** Matched against the path below `/api/v10`, e.g. `/channels/123/messages`. */
  path?: RegExp | string;
}

export interface RateLimitOptions {
  /** Seconds the client must wait (Discord's unit). Default 0.25. */
  retryAfter?: number;
  /** Global limit: adds `X-RateLimit-Global: true` and scope "global". */
  global?: boolean;
  scope?: "user" | "global" | "shared";
  /** How many matching requests to reject. Default 1. */
  times?: number;
}

interface Rule {
  matcher: RouteMatcher | ((method: string, path: string) => boolean);
  options: Required<Omit<RateLimitOptions, "scope">> & { scope: string };
  remaining: number;
}

/** Per-route bucket size: `limit` requests per `windowMs`, per route and top-level resource. */
export interface RouteLimit {
  limit: number;
  windowMs: number;
}

/** Default bucket. Discord's real per-route numbers vary and are undocumented ("don't hard-code them"). */
export const DEFAULT_ROUTE_LIMIT: RouteLimit = { limit: 10, windowMs: 1000 };

interface Bucket {
  remaining: number;
  resetAt: number;
}

/**
 * Discord's rate limits (https://docs.discord.com/developers/topics/rate-limits): every response
 * carries X-RateLimit-Limit/Remaining/Reset/Reset-After/Bucket; per-route buckets count per method +
 * route and top-level resource (channel, guild, webhook id + token); a request over the limit gets a
 * 429 with Retry-After and X-RateLimit-Scope. Interaction callbacks are not bound to the bot's limits
 * ("Interaction endpoints are not bound to the bot's Global Rate Limit"), so they are never refused.
 * Tests can also arm 429s with `arm()`.
 */
export class RateLimiter {
  private readonly rules: Rule[] = [];
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly routeLimit: RouteLimit | null = DEFAULT_ROUTE_LIMIT) {}

  /** Counts the request in its bucket; returns the headers for the response, or a 429 when the bucket is empty. */
  take(
    method: string,
    path: string,
  ): {
    limited: { body: Record<string, unknown>; headers: Record<string, string> } | null;
    headers: Record<string, string>;
  } {
    const { bucket, key, exempt } = routeOf(method, path);
    const limit = this.routeLimit ?? { limit: 1_000_000, windowMs: 1000 };
    const now = Date.now();
    let state = this.buckets.get(key);
    if (!state || state.resetAt <= now)
      this.buckets.set(key, (state = { remaining: limit.limit, resetAt: now + limit.windowMs }));
    const resetAt = state.resetAt;
    const resetAfter = (resetAt - now) / 1000;
    const headers = (remaining: number): Record<string, string> => ({
      "x-ratelimit-limit": String(limit.limit),
      "x-ratelimit-remaining": String(remaining),
      "x-ratelimit-reset": (resetAt / 1000).toFixed(3),
      "x-ratelimit-reset-after": resetAfter.toFixed(3),
      "x-ratelimit-bucket": bucket,
    });
    if (state.remaining <= 0 && !exempt && this.routeLimit) {
      const retryAfter = Math.max(0.001, resetAfter);
      return {
        limited: {
          body: { message: "You are being rate limited.", retry_after: retryAfter, global: false },
          headers: { ...headers(0), "retry-after": String(Math.ceil(retryAfter)), "x-ratelimit-scope": "user" },
        },
        headers: headers(0),
      };
    }
    if (!exempt) state.remaining--;
    return { limited: null, headers: headers(Math.max(0, state.remaining)) };
  }

  arm(matcher: RouteMatcher | ((method: string, path: string) => boolean), options: RateLimitOptions = {}): void {
    const global = options.global ?? false;
    const times = options.times ?? 1;
    this.rules.push({
      matcher,
      options: {
        retryAfter: options.retryAfter ?? 0.25,
        global,
        scope: options.scope ?? (global ? "global" : "user"),
        times,
      },
      remaining: times,
    });
  }

  /** Returns a 429 body + headers if an armed rule matches (and consumes it). */
  check(method: string, path: string): { body: Record<string, unknown>; headers: Record<string, string> } | null {
    const rule = this.rules.find((r) => r.remaining > 0 && matches(r.matcher, method, path));
    if (!rule) return null;
    rule.remaining--;
    if (rule.remaining === 0) this.rules.splice(this.rules.indexOf(rule), 1);
    const { retryAfter, global, scope } = rule.options;
    const headers: Record<string, string> = {
      "retry-after": String(retryAfter),
      "x-ratelimit-scope": scope,
    };
    if (global) headers["x-ratelimit-global"] = "true";
    else {
      Object.assign(headers, {
        "x-ratelimit-limit": "5",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": ((Date.now() + retryAfter * 1000) / 1000).toFixed(3),
        "x-ratelimit-reset-after": retryAfter.toFixed(3),
        "x-ratelimit-bucket": `fake-${bucketKey(method, path)}`,
      });
    }
    return { body: { message: "You are being rate limited.", retry_after: retryAfter, global }, headers };
  }

  get pending(): number {
    return this.rules.reduce((n, r) => n + r.remaining, 0);
  }
}

function matches(matcher: Rule["matcher"], method: string, path: string): boolean {
  if (typeof matcher === "function") return matcher(method, path);
  if (matcher.method && matcher.method.toUpperCase() !== method) return false;
  if (matcher.path === undefined) return true;
  return typeof matcher.path === "string" ? matcher.path === path : matcher.path.test(path);
}

/** Discord's bucket identity: method + route with ids replaced, plus the top-level resource. */
function routeOf(method: string, path: string): { bucket: string; key: string; exempt: boolean } {
  if (/^\/interactions\/[^/]+\/[^/]+\/callback$/.test(path))
    return {
      bucket: `fake-${bucketKey("POST", "/interactions/:id/:token/callback")}`,
      key: `callback:${path}`,
      exempt: true,
    };
  const major =
    /^\/webhooks\/(\d+\/[^/]+)/.exec(path)?.[1] ?? /^\/(?:channels|guilds|webhooks)\/(\d+)/.exec(path)?.[1] ?? "global";
  const route = path
    .replace(/^\/webhooks\/\d+\/[^/]+/, "/webhooks/:id/:token")
    .replace(/\d{16,}/g, ":id")
    .replace(/\/reactions\/.*/, "/reactions/:reaction");
  const bucket = `fake-${bucketKey(method, route)}`;
  return { bucket, key: `${bucket}:${major}`, exempt: false };
}

function bucketKey(method: string, path: string): string {
  let hash = 0;
  for (const ch of `${method} ${path.replace(/\d{16,}/g, ":id")}`) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return hash.toString(16);
}

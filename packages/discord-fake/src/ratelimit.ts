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

/** Rate limits armed by tests: the next N matching requests get a 429 with Discord's headers. */
export class RateLimiter {
  private readonly rules: Rule[] = [];

  arm(matcher: RouteMatcher | ((method: string, path: string) => boolean), options: RateLimitOptions = {}): void {
    const global = options.global ?? false;
    const times = options.times ?? 1;
    this.rules.push({
      matcher,
      options: { retryAfter: options.retryAfter ?? 0.25, global, scope: options.scope ?? (global ? "global" : "user"), times },
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

function bucketKey(method: string, path: string): string {
  let hash = 0;
  for (const ch of `${method} ${path.replace(/\d{16,}/g, ":id")}`) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return hash.toString(16);
}

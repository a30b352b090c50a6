import type { FailureReason } from "./types.ts";

const MINUTE = 60_000;

/** Backoff per consecutive failure: 1 → 5 → 25 → 60 minutes, then stays at 60. */
export const COOLDOWN_STEPS_MS = [1 * MINUTE, 5 * MINUTE, 25 * MINUTE, 60 * MINUTE] as const;

/** An overload is Anthropic's, not the credential's: a short, non-escalating pause. */
const OVERLOAD_COOLDOWN_MS = 30_000;

/**
 * Cooldown length after the `failures`-th consecutive failure (1-based). A rate limit or an
 * overload follows the server's retry-after when there is one (the server knows when the limit
 * resets; escalating to an hour would lock out a key that works again in seconds); otherwise the
 * steps apply, and a retry-after longer than the step wins.
 */
export function cooldownMs(failures: number, retryAfterMs?: number, reason?: FailureReason): number {
  if ((reason === "rate_limit" || reason === "overloaded") && retryAfterMs !== undefined) return retryAfterMs;
  if (reason === "overloaded") return OVERLOAD_COOLDOWN_MS;
  const index = Math.min(Math.max(failures, 1), COOLDOWN_STEPS_MS.length) - 1;
  const step = COOLDOWN_STEPS_MS[index] ?? COOLDOWN_STEPS_MS[COOLDOWN_STEPS_MS.length - 1]!;
  return Math.max(step, retryAfterMs ?? 0);
}

export function describeReason(reason: FailureReason): string {
  switch (reason) {
    case "auth":
      return "credential rejected";
    case "rate_limit":
      return "rate limited";
    case "overloaded":
      return "Anthropic overloaded";
    case "billing":
      return "billing problem";
  }
}

import type { RetryPolicy } from "./policy.ts";

/**
 * Calls `fn`, and while it fails with a retryable error, calls it again on the policy's schedule
 * (`schedule.ts`, Effect's `Schedule`). The first try is plain: Effect is imported only once
 * something failed, so a call that succeeds costs no fiber and no import.
 */
export async function retrying<T>(fn: () => Promise<T>, policy: RetryPolicy): Promise<T> {
  try {
    return await fn();
  } catch (first) {
    if (!policy.retryable(first)) throw first;
    const { retryAfterFirstFailure } = await import("./schedule.ts");
    return retryAfterFirstFailure(fn, first, policy);
  }
}

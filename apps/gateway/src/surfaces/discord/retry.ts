import { retrying } from "@openassistant/core/retry";
import { isTransient } from "./discord-errors.ts";
import type { SurfaceLog } from "./logger.ts";

/**
 * Runs a Discord call, retrying with backoff (0.5 s doubling to 30 s, jittered so the sends an
 * outage held up do not all return at once) while Discord is unreachable (network errors, 5xx) and
 * `until` (epoch ms) is not reached. A 4xx is final and thrown at once.
 */
export function retryWhileUnreachable<T>(
  fn: () => Promise<T>,
  until: number,
  onWait?: (e: unknown) => void,
): Promise<T> {
  return retrying(fn, {
    firstWaitMs: 500,
    maxWaitMs: 30_000,
    jitter: true,
    retryable: isTransient,
    until,
    ...(onWait ? { onWait } : {}),
  });
}

/**
 * As `safely`, but an answer produced during an outage is sent once Discord is back instead of
 * being dropped (retried for up to 10 minutes). Logs once when it starts waiting.
 */
export async function withRetry<T>(
  log: SurfaceLog,
  what: string,
  fn: () => Promise<T>,
  until = Date.now() + 10 * 60_000,
): Promise<T | undefined> {
  let told = false;
  try {
    const result = await retryWhileUnreachable(fn, until, (e) => {
      if (!told) log(`${what}: Discord is unreachable; retrying until it is back`, e);
      told = true;
    });
    if (told) log(`${what}: sent after Discord came back`);
    return result;
  } catch (e) {
    log(what, e);
    return undefined;
  }
}

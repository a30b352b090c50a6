import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Schedule from "effect/Schedule";
import type { RetryPolicy } from "./policy.ts";

/** The policy's waits: exponential from `firstWaitMs`, jittered if asked, capped, never past `until`. */
export function retrySchedule(policy: RetryPolicy): Schedule.Schedule<Duration.Duration, unknown, unknown> {
  const exponential = Schedule.exponential(Duration.millis(policy.firstWaitMs), policy.factor ?? 2);
  const cap = Duration.millis(policy.maxWaitMs);
  return (policy.jitter ? Schedule.jittered(exponential) : exponential).pipe(
    Schedule.modifyDelay(({ duration }) => Effect.succeed(Duration.min(duration, cap))),
    // A wait that would end after the deadline is not begun: the schedule fails with the last failure.
    Schedule.modifyDelay(({ duration, input, now }) => {
      const waitMs = Duration.toMillis(duration);
      if (now + waitMs > policy.until) return Effect.fail(input);
      policy.onWait?.(input, waitMs);
      return Effect.succeed(duration);
    }),
  );
}

/** Goes on after the plain first try failed with `first` (a retryable failure): its failure is the schedule's first input. */
export function retryAfterFirstFailure<T>(fn: () => Promise<T>, first: unknown, policy: RetryPolicy): Promise<T> {
  let replay: { error: unknown } | undefined = { error: first };
  const attempt = Effect.suspend(() => {
    if (!replay) return Effect.tryPromise({ try: fn, catch: (error) => error });
    const { error } = replay;
    replay = undefined;
    return Effect.fail(error);
  });
  return Effect.runPromise(Effect.retry(attempt, { schedule: retrySchedule(policy), while: policy.retryable }));
}

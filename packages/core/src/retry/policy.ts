/** How a failing call is tried again: exponential waits with a cap, optionally jittered, up to a deadline. */
export interface RetryPolicy {
  /** The wait after the first failure, in ms. */
  readonly firstWaitMs: number;
  /** Each wait is this many times the one before (default 2; 1 polls at a fixed interval). */
  readonly factor?: number;
  /** No wait is longer than this, in ms (jitter included). */
  readonly maxWaitMs: number;
  /** Spread each wait by ±20% (`Schedule.jittered`), so callers that failed together do not retry together. */
  readonly jitter?: boolean;
  /** Which failures are worth another try; any other is thrown at once. */
  readonly retryable: (error: unknown) => boolean;
  /** Epoch ms: a wait that would end after it is not begun, and the last failure is thrown. */
  readonly until: number;
  /** Told before each wait, with the failure and the wait in ms. */
  readonly onWait?: (error: unknown, waitMs: number) => void;
}

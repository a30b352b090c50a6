/** Default time limit for importing one tool/plugin file and, separately, for running one plugin factory. */
export const DEFAULT_LOAD_TIMEOUT_MS = 10_000;

/** Thrown by `withTimeLimit` when the work did not settle in time (the work itself keeps running, ignored). */
export class LoadTimeoutError extends Error {
  override name = "LoadTimeoutError";
  constructor(readonly ms: number) {
    super(`did not finish within ${formatSeconds(ms)}`);
  }
}

/**
 * Races `work` against a timer. A file whose top-level `await` never settles, or a factory whose
 * promise never resolves, must not stop the other tools (or every later reload) from loading.
 */
export async function withTimeLimit<T>(work: () => T | Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new LoadTimeoutError(ms)), ms);
  });
  try {
    // `work()` may throw synchronously: that must reject like an async failure.
    return await Promise.race([Promise.resolve().then(work), limit]);
  } finally {
    clearTimeout(timer);
  }
}

export function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(ms < 1000 ? 2 : 1)} s`;
}

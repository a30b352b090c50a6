/**
 * The turn's time limit, as a timer that can be held. The limit is about model and tool time:
 * while an approval of the turn waits for an operator the clock stands still (approvals have
 * their own timeout), so a 5-minute turn limit never cuts a 10-minute approval short.
 */
export interface TurnClock {
  /** Stops the clock until the matching release(); holds nest (several approvals at once). */
  hold(): void;
  release(): void;
  /** Clears the timer for good (the turn is over). */
  stop(): void;
}

export function startTurnClock(limitMs: number, onExpire: () => void): TurnClock {
  let remaining = limitMs;
  let startedAt = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined = setTimeout(onExpire, remaining);
  let holds = 0;
  let stopped = false;
  return {
    hold() {
      if (stopped || holds++ > 0) return;
      clearTimeout(timer);
      timer = undefined;
      remaining -= performance.now() - startedAt;
    },
    release() {
      if (stopped || holds === 0 || --holds > 0) return;
      startedAt = performance.now();
      timer = setTimeout(onExpire, Math.max(0, remaining));
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

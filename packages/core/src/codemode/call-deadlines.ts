/**
 * Tool-call timeouts on one shared timer. A timer per call (setTimeout as it starts, clearTimeout as
 * it ends) cost ~3 µs of the parent's CPU per call in bench/tool-calls.bench.ts; here a call adds
 * and removes a set entry. The timer is armed for the earliest deadline and stays armed when calls
 * end; it holds the event loop open only while a call is waiting on it (ref/unref), as the per-call
 * timers did. A deadline never fires early: a timer that wakes before it is armed again.
 */

/** setTimeout's largest delay; a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface Deadline {
  readonly at: number;
  readonly fire: () => void;
}

export interface Deadlines {
  /** Calls `fire` once `ms` have passed, unless removed first; undefined (never fires) for an infinite `ms`. */
  add(ms: number, fire: () => void): Deadline | undefined;
  remove(deadline: Deadline | undefined): void;
  /** Deadlines waiting (for tests). */
  readonly size: number;
}

export function createDeadlines(now: () => number = () => performance.now()): Deadlines {
  const waiting = new Set<Deadline>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let armedFor = Number.POSITIVE_INFINITY;

  const arm = (at: number) => {
    if (timer !== undefined) clearTimeout(timer);
    armedFor = at;
    timer = setTimeout(sweep, Math.min(MAX_TIMER_MS, Math.max(0, Math.ceil(at - now()))));
    if (waiting.size === 0) timer.unref();
  };

  function sweep(): void {
    timer = undefined;
    armedFor = Number.POSITIVE_INFINITY;
    const t = now();
    const due: Deadline[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const d of waiting) {
      if (d.at <= t) due.push(d);
      else if (d.at < next) next = d.at;
    }
    for (const d of due) waiting.delete(d);
    if (next !== Number.POSITIVE_INFINITY) arm(next);
    // Each fires even if one before it throws; the first throw then surfaces, as its own timer's would.
    let failed = false;
    let failure: unknown;
    for (const d of due)
      try {
        d.fire();
      } catch (e) {
        if (!failed) [failed, failure] = [true, e];
      }
    if (failed) throw failure;
  }

  return {
    add(ms, fire) {
      if (!(ms < Number.POSITIVE_INFINITY)) return undefined;
      const deadline: Deadline = { at: now() + Math.max(0, ms), fire };
      waiting.add(deadline);
      if (deadline.at < armedFor) arm(deadline.at);
      else if (waiting.size === 1) timer?.ref();
      return deadline;
    },
    remove(deadline) {
      if (deadline && waiting.delete(deadline) && waiting.size === 0) timer?.unref();
    },
    get size() {
      return waiting.size;
    },
  };
}

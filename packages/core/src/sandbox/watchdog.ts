/**
 * Parent-side CPU watchdog. The parent cannot see the child's CPU clock, but it knows when the
 * child may be executing: from the moment it sends work (a run, or tool answers) until the child
 * reports it is idle again with the matching sequence number. A child that stays busy past its
 * CPU budget plus a grace period may be stuck somewhere the in-VM interrupt handler cannot reach
 * (e.g. `a.sort()` on a huge array); it is killed once its own CPU clock (`proc-cpu.ts`) confirms
 * it spent that much, so a child that only waited for a core on a busy host is not.
 */
export class BusyClock {
  private busySince: number | undefined;
  private busyTotal = 0;

  markBusy(now = performance.now()): void {
    this.busySince ??= now;
  }

  markIdle(now = performance.now()): void {
    if (this.busySince === undefined) return;
    this.busyTotal += now - this.busySince;
    this.busySince = undefined;
  }

  /** Busy time so far, including the current busy stretch. */
  busyMs(now = performance.now()): number {
    return this.busyTotal + (this.busySince === undefined ? 0 : now - this.busySince);
  }

  isBusy(): boolean {
    return this.busySince !== undefined;
  }
}

export interface Watched {
  /** Called on every tick; the watched object decides whether to act. */
  checkWatchdog(now: number): void;
}

const TICK_MS = 20;
const watched = new Set<Watched>();
let timer: ReturnType<typeof setInterval> | undefined;

export function watch(item: Watched): void {
  watched.add(item);
  timer ??= setInterval(() => {
    const now = performance.now();
    for (const w of watched) w.checkWatchdog(now);
  }, TICK_MS);
}

export function unwatch(item: Watched): void {
  watched.delete(item);
  if (watched.size === 0 && timer !== undefined) {
    clearInterval(timer);
    timer = undefined;
  }
}

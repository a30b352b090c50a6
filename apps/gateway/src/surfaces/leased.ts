import { describeUrl, takeLease } from "@openassistant/core/db";
import type { RunningSurface } from "./surface.ts";

export interface LeasedSurfaceOptions {
  /** The shared database (`storage.url`). */
  readonly url: string;
  /** The lease's name: the surface's id (`discord`). */
  readonly name: string;
  /** Starts the surface; called each time this gateway takes the lease. */
  readonly start: () => Promise<RunningSurface>;
  readonly out: (line: string) => void;
  /** How often a waiting gateway tries the lease (the lease's default, 2 s, when absent). */
  readonly retryMs?: number;
}

/**
 * A surface only one gateway of a shared database may run (a bot's connection): it starts when
 * this gateway takes the lease, and is stopped the moment the lease is lost (`onLost`), before
 * another gateway can take it over; then this gateway waits its turn again. Until it holds the
 * lease the gateway serves everything else (HTTP API, console). `done` rejects when the surface
 * fails to start (a bad token), as an unleased start would.
 */
export function startLeasedSurface(options: LeasedSurfaceOptions): RunningSurface & { holding(): boolean } {
  const { name, out } = options;
  let stopping = false;
  let fail: (e: unknown) => void = () => {};
  const done = new Promise<void>((_, reject) => void (fail = reject));
  // Starts and stops run one after another: a lease lost while the surface starts stops it once started.
  let current: Promise<RunningSurface | undefined> = Promise.resolve(undefined);
  /** The surface started under the lease and not stopped since. */
  let live = false;
  const stopCurrent = () =>
    (current = current.then(async (running) => {
      live = false;
      await running?.stop();
      return undefined;
    }));
  const lease = takeLease(options.url, name, {
    ...(options.retryMs !== undefined ? { retryMs: options.retryMs } : {}),
    onAcquired: () => {
      current = current.then(async (running) => {
        if (running || stopping || !lease.held()) return running;
        out(`${name}: this gateway holds the lease "${name}": connecting.`);
        try {
          const started = await options.start();
          live = lease.held();
          return started;
        } catch (e) {
          fail(e);
          return undefined;
        }
      });
    },
    onLost: (reason) => {
      out(`${name}: lease lost (${reason}): disconnecting; waiting to take it again.`);
      void stopCurrent();
    },
  });
  out(`${name}: one gateway of ${describeUrl(options.url)} at a time runs it; taking the lease "${name}"…`);
  return {
    done,
    holding: () => live && lease.held(),
    async stop() {
      stopping = true;
      // The surface closes before the lease is let go: the next holder never overlaps with it.
      await stopCurrent();
      await lease.release();
    },
  };
}

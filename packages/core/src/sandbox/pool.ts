/**
 * The code-mode sandbox: a pool of pre-spawned `bun --smol` child processes, each running one
 * snippet at a time in a fresh QuickJS instance. See DESIGN.md "Sandbox".
 */
import { toolPathProblem } from "../tools/names.ts";
import { SandboxChild } from "./child-process.ts";
import { sandboxErrorMessages as msg } from "./messages.ts";
import {
  defaultSandboxLimits,
  type SandboxLimits,
  type SandboxPool,
  type SandboxResult,
  type SandboxRunOptions,
} from "./types.ts";

export interface SandboxPoolOptions {
  /** Children kept spawned and ready while idle (default 1). */
  readonly minIdle?: number;
  /** Upper bound on child processes; further runs queue (default 64). */
  readonly maxChildren?: number;
  /** Defaults for every run; a run's own `limits` override these. */
  readonly limits?: Partial<SandboxLimits>;
  /** Extra time past the CPU budget a child may stay unresponsive before it is killed (default 250 ms, at least cpuMs/4). */
  readonly watchdogGraceMs?: number;
  /** Surplus idle children (beyond minIdle) are retired after this long (default 30 s). */
  readonly idleRetireMs?: number;
}

/**
 * Starts tried in a row before the runs waiting for a child fail. A start fails when the process
 * dies before it is ready (the OOM killer on a crowded host, a spawn refused for lack of
 * processes); that is usually passing, so a waiting run is kept waiting while the pool tries again.
 */
export const SANDBOX_START_TRIES = 5;
/** Pause before the n-th retry (1-based): 100, 200, 400, 800 ms. */
const startBackoffMs = (failures: number) => Math.min(2_000, 100 * 2 ** (failures - 1));

type Acquired = SandboxChild | "closed" | "spawn-failed" | "aborted";

/** Tool path arrays already checked (callers pass the same array for the same tools). */
const checkedPaths = new WeakSet<readonly string[]>();

export function createSandboxPool(options: SandboxPoolOptions = {}): SandboxPool {
  const minIdle = Math.max(0, Math.floor(options.minIdle ?? 1));
  const maxChildren = Math.max(1, Math.floor(options.maxChildren ?? 64));
  const baseLimits = checkLimits({ ...defaultSandboxLimits, ...options.limits }, "createSandboxPool limits");
  const idleRetireMs = options.idleRetireMs ?? 30_000;

  const all = new Set<SandboxChild>();
  /** Prepared, free children; the most recently used last (retirement takes from the front). */
  const idle: SandboxChild[] = [];
  const waiters: Array<(child: Acquired) => void> = [];
  /** Children that have been ready at least once (an exit before that is a failed start). */
  const everReady = new WeakSet<SandboxChild>();
  let closed = false;
  /** Failed starts in a row (reset when a child gets ready or the waiting runs were failed). */
  let failedStarts = 0;
  /** Set after the waiting runs failed for want of a child: no spares until one starts again. */
  let startsFailing = false;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let retireTimer: ReturnType<typeof setTimeout> | undefined;

  function spawn(): boolean {
    let child: SandboxChild;
    try {
      child = newChild();
    } catch {
      startFailed();
      return false;
    }
    all.add(child);
    return true;
  }

  /** A start failed: try again after a pause, or fail the waiting runs after SANDBOX_START_TRIES. */
  function startFailed(): void {
    failedStarts++;
    if (failedStarts >= SANDBOX_START_TRIES) {
      failedStarts = 0;
      startsFailing = true;
      for (const waiter of waiters.splice(0)) waiter("spawn-failed");
      return;
    }
    if (retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      replenish();
    }, startBackoffMs(failedStarts));
  }

  function newChild(): SandboxChild {
    return new SandboxChild({
      memoryBytes: baseLimits.memoryBytes,
      onIdle: release,
      onExit: (c) => {
        const wasStarting = !everReady.has(c);
        all.delete(c);
        everReady.delete(c);
        removeIdle(c);
        if (wasStarting && !closed) startFailed();
        replenish();
      },
    });
  }

  function removeIdle(child: SandboxChild): void {
    const i = idle.indexOf(child);
    if (i >= 0) idle.splice(i, 1);
  }

  /** Children that will be free soon without spawning: starting up, or preparing after a run. */
  function coming(): number {
    let n = 0;
    for (const c of all) if (c.state === "starting" || c.state === "recycling") n++;
    return n;
  }

  /** Keeps `minIdle` spare children plus one per queued run on their way. */
  function replenish(): void {
    // While a failed start waits out its pause, nothing is spawned.
    if (closed || retryTimer) return;
    // While starts keep failing, spawn only for queued runs.
    const spare = startsFailing ? 0 : minIdle;
    while (all.size < maxChildren && idle.length + coming() < spare + waiters.length) {
      if (!spawn()) break;
    }
  }

  function release(child: SandboxChild): void {
    everReady.add(child);
    failedStarts = 0;
    startsFailing = false;
    if (closed) return child.kill();
    const waiter = waiters.shift();
    if (waiter) return waiter(child);
    idle.push(child);
    scheduleRetire();
  }

  function scheduleRetire(): void {
    if (retireTimer || idle.length <= minIdle) return;
    retireTimer = setTimeout(() => {
      retireTimer = undefined;
      const cutoff = performance.now() - idleRetireMs;
      while (idle.length > minIdle && idle[0]!.idleSince <= cutoff) idle.shift()!.kill();
      scheduleRetire();
    }, idleRetireMs);
    retireTimer.unref?.();
  }

  /**
   * The idle child with the most prepared instances, the most recently used among equals. A child
   * that just finished a run is still preparing its next instances; another one runs sooner.
   */
  function takeIdle(): SandboxChild | undefined {
    let best = idle.length - 1;
    for (let i = idle.length - 2; i >= 0; i--) if (idle[i]!.spares > idle[best]!.spares) best = i;
    return best < 0 ? undefined : idle.splice(best, 1)[0];
  }

  /** An idle child, or a place in the queue for the next one; the run's signal takes it out of the queue. */
  function acquire(signal: AbortSignal | undefined): Promise<Acquired> {
    const ready = takeIdle();
    if (ready) {
      replenish();
      return Promise.resolve(ready);
    }
    const waiting = new Promise<Acquired>((resolve) => {
      const onAbort = () => {
        const i = waiters.indexOf(take);
        if (i >= 0) waiters.splice(i, 1);
        resolve("aborted");
      };
      const take = (child: Acquired) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(child);
      };
      waiters.push(take);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    replenish();
    return waiting;
  }

  const graceFor = (limits: SandboxLimits) => options.watchdogGraceMs ?? Math.max(250, limits.cpuMs / 4);

  return {
    async run(runOptions: SandboxRunOptions): Promise<SandboxResult> {
      if (closed) throw new Error("The sandbox pool is closed; create a new one with createSandboxPool().");
      if (!checkedPaths.has(runOptions.toolPaths)) {
        for (const path of runOptions.toolPaths) {
          const problem = toolPathProblem(path);
          if (problem === "not-identifier")
            throw new TypeError(
              `Invalid tool path ${JSON.stringify(path)}: use dot-separated identifiers like "calendar.create".`,
            );
          if (problem === "reserved")
            throw new TypeError(
              `Invalid tool path ${JSON.stringify(path)}: "then" and "__proto__" cannot name a tool or group; rename it.`,
            );
        }
        checkedPaths.add(runOptions.toolPaths);
      }
      const limits = checkLimits({ ...baseLimits, ...runOptions.limits }, "run limits");
      const empty = { cpuMs: 0, wallMs: 0, toolCalls: 0 };
      if (runOptions.signal?.aborted)
        return { ok: false, error: { name: "AbortedError", message: msg.aborted }, logs: [], stats: empty };
      const child = await acquire(runOptions.signal);
      if (child === "aborted")
        return { ok: false, error: { name: "AbortedError", message: msg.aborted }, logs: [], stats: empty };
      if (child === "closed")
        return { ok: false, error: { name: "AbortedError", message: msg.poolClosed }, logs: [], stats: empty };
      if (child === "spawn-failed") {
        return {
          ok: false,
          error: {
            name: "SandboxCrashError",
            message: msg.crash(`a sandbox process could not be started in ${SANDBOX_START_TRIES} tries`),
          },
          logs: [],
          stats: empty,
        };
      }
      if (runOptions.signal?.aborted) {
        release(child);
        return { ok: false, error: { name: "AbortedError", message: msg.aborted }, logs: [], stats: empty };
      }
      // After the run the child prepares a fresh instance and comes back through onIdle.
      return child.execute(runOptions, limits, graceFor(limits));
    },

    async warmUp(opts?: { readonly ready?: number }): Promise<void> {
      replenish();
      const want = Math.min(opts?.ready ?? minIdle, minIdle, maxChildren);
      while (!closed && idle.length < want && coming() > 0) await Bun.sleep(5);
    },

    async close(): Promise<void> {
      closed = true;
      if (retireTimer) clearTimeout(retireTimer);
      if (retryTimer) clearTimeout(retryTimer);
      for (const waiter of waiters.splice(0)) waiter("closed");
      idle.length = 0;
      const children = [...all];
      for (const child of children) child.kill();
      await Promise.allSettled(children.map((c) => c.exited));
    },
  };
}

function checkLimits(limits: SandboxLimits, where: string): SandboxLimits {
  for (const [key, value] of Object.entries(limits)) {
    if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
      throw new TypeError(`${where}: ${key} must be a positive number (got ${String(value)}).`);
    }
  }
  return limits;
}

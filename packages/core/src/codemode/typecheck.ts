/**
 * The typecheck, off the gateway's main thread. TypeScript runs in pooled `bun --smol` child
 * processes (typecheck-child.ts); this module never imports it. Each check has a time limit and
 * each checker process a resident-memory cap; a check that exceeds either gets a clear error for
 * the model and its checker is killed and replaced. Anything that goes wrong with a checker fails
 * the check closed (the code is not run).
 *
 * Why processes and not a Worker: a Worker lives in the gateway's process (a type that expands to
 * gigabytes would take the gateway with it), and Bun does not enforce a Worker's `resourceLimits`
 * (verified on Bun 1.4.5: a Worker given `maxOldGenerationSizeMb: 32` allocated 480 MB and finished
 * normally); only a separate process can be capped and killed for certain.
 */
import type { Subprocess } from "bun";
import { readFileSync } from "node:fs";
import { cpuDeadline } from "../sandbox/proc-cpu.ts";
import { precheckSnippet } from "./precheck.ts";
import { failWith, OA_DIAGNOSTIC, type TypecheckResult } from "./typecheck-diagnostics.ts";
import type { CheckerReply, CheckerRequest } from "./typecheck-protocol.ts";

export {
  OA_DIAGNOSTIC,
  reportDiagnostics,
  type TypecheckDiagnostic,
  type TypecheckResult,
} from "./typecheck-diagnostics.ts";

export interface TypecheckerOptions {
  /**
   * Limit for one check once a checker has it, in ms of the checker's CPU time (default 5,000):
   * a checker that only waits for a core on a busy host is not cut off. Where /proc is missing
   * (not Linux) it is wall time. A check also ends after `wallTimeoutMs` of wall time.
   */
  readonly timeoutMs?: number;
  /** Wall time a check may take at most, however little CPU it got (default WALL_CAP_FACTOR × timeoutMs). */
  readonly wallTimeoutMs?: number;
  /** Resident memory cap of one checker process, in MiB (default 1,024). Enforced where /proc exists (Linux). */
  readonly memoryMb?: number;
  /** Checker processes at most (default 2): one is started by warmUp, a second when checks overlap. */
  readonly maxCheckers?: number;
  /** How long a new checker may take to load TypeScript and warm up, in ms of its CPU time (default 30,000; wall cap as above). */
  readonly startTimeoutMs?: number;
  /**
   * JIT warm-up: checks of a lib-only snippet each checker process makes in idle time once it is
   * warm (default 0; the gateway uses GATEWAY_PRACTICE_CHECKS). Costs CPU once per process
   * (~1.7 s for 500 on the bench VM); afterwards a check costs a third as much (typecheck-program.ts).
   */
  readonly practiceChecks?: number;
}

/**
 * What the gateway's own checker practises. Measured in process (200 tools, checks spaced like
 * turns): a one-call snippet 1.25 → 0.39 ms CPU and the typecheck bench's snippet (three calls in
 * Promise.all) 4.2 → 1.5 ms after 300 practice checks; 0.42 / 1.14 ms after 1,000.
 */
export const GATEWAY_PRACTICE_CHECKS = 500;

export interface Typechecker {
  /**
   * Starts a checker process and resolves once it has loaded TypeScript and parsed the standard
   * library. With `declarations`, each checker (this one, and any started later) also builds a warm
   * checker for them as soon as it is ready, so the first check against them does not.
   */
  warmUp(declarations?: string): Promise<void>;
  /** Typechecks a snippet (a function body) against `declarations` (text from generateDeclarations). Never rejects. */
  check(code: string, declarations: string): Promise<TypecheckResult>;
  /** Kills the checker processes; pending checks fail closed. */
  close(): Promise<void>;
  /** Processes started so far and how many were killed for a limit (for tests, benchmarks and `doctor`). */
  stats(): {
    readonly started: number;
    readonly replaced: number;
    readonly live: number;
    readonly pids: readonly number[];
    /** Checks answered by a checker, and the CPU time the checkers spent on them. */
    readonly checked: number;
    readonly checkerCpuMs: number;
    /** Checks that had to build their checker first (new declarations, or none was ready). */
    readonly coldChecks: number;
    /** JIT warm-up checks the checker processes had made, as of their latest replies (summed). */
    readonly practised: number;
  };
}

const CHILD_ENTRY = `${import.meta.dir}/typecheck-child.ts`;
/**
 * A check or start that makes no progress at all ends after this many times its CPU limit in
 * wall time (a checker given a tenth of a core by a busy host still finishes).
 */
export const WALL_CAP_FACTOR = 10;
const MEMORY_POLL_MS = 20;
/** Consecutive checker start failures after which queued checks fail instead of waiting for another try. */
const MAX_START_FAILURES = 2;

interface Job {
  readonly code: string;
  readonly key: string;
  readonly declarations: string;
  readonly resolve: (r: TypecheckResult) => void;
}

type Limits = Required<TypecheckerOptions>;

interface Counters {
  checked: number;
  cpuMs: number;
  cold: number;
  /** Per checker process id, as of its latest reply. */
  readonly practised: Map<number, number>;
}

export function createTypechecker(options: TypecheckerOptions = {}): Typechecker {
  const limits: Limits = {
    timeoutMs: 5_000,
    wallTimeoutMs: (options.timeoutMs ?? 5_000) * WALL_CAP_FACTOR,
    memoryMb: 1_024,
    maxCheckers: 2,
    startTimeoutMs: 30_000,
    practiceChecks: 0,
    ...options,
  };
  const checkers = new Set<CheckerProcess>();
  const queue: Job[] = [];
  let started = 0;
  let replaced = 0;
  const counters: Counters = { checked: 0, cpuMs: 0, cold: 0, practised: new Map() };
  let startFailures = 0;
  let closed = false;
  let lastText: string | undefined;
  let lastKey = "";

  const keyOf = (text: string) => {
    // The same string object is compared by identity first, so an unchanged tree costs no hashing.
    if (text !== lastText) {
      lastText = text;
      lastKey = `${text.length}:${Bun.hash(text).toString(36)}`;
    }
    return lastKey;
  };

  function spawn(): CheckerProcess {
    started++;
    const checker = new CheckerProcess(limits, counters, {
      onReady: () => {
        startFailures = 0;
        // The latest declarations (checked or warmed up): a replacement checker gets them too.
        if (lastText !== undefined) checker.prime(lastKey, lastText);
        dispatch();
      },
      onIdle: () => dispatch(),
      onGone: (why) => {
        checkers.delete(checker);
        if (closed) return;
        if (why === "limit") replaced++;
        if (why === "start-failed") {
          startFailures++;
          if (startFailures >= MAX_START_FAILURES && checkers.size === 0) {
            // Fail closed: nobody can check these now. The next check tries to start a checker again.
            for (const job of queue.splice(0)) job.resolve(unavailable("no checker process could be started"));
            startFailures = 0;
            return;
          }
          if (queue.length === 0) return; // retry only when a check is waiting
        }
        // Replace it at once, so the next check finds a warm checker.
        if (queue.length > 0 || checkers.size === 0) checkers.add(spawn());
        dispatch();
      },
    });
    return checker;
  }

  function dispatch(): void {
    while (queue.length > 0) {
      const idle = [...checkers].find((c) => c.state === "idle");
      if (idle) {
        idle.run(queue.shift()!);
        continue;
      }
      const starting = [...checkers].filter((c) => c.state === "starting").length;
      if (starting < queue.length && checkers.size < limits.maxCheckers) {
        checkers.add(spawn());
        continue;
      }
      return;
    }
  }

  return {
    warmUp(declarations) {
      if (closed) return Promise.resolve();
      if (typeof declarations === "string") {
        const key = keyOf(declarations);
        for (const c of checkers) if (c.state === "idle" || c.state === "busy") c.prime(key, declarations);
      }
      if (checkers.size === 0) checkers.add(spawn());
      return Promise.race([...checkers].map((c) => c.ready)).then((ok) => {
        if (!ok) throw new Error("the typecheck process did not start; checks will fail closed until one does");
      });
    },
    check(code, declarations) {
      if (closed) return Promise.resolve(unavailable("the gateway is shutting down"));
      // Module loading and wrapper escapes are refused before anything parses the code (see
      // precheck.ts); plain syntax errors go on to TypeScript, which reports them better (the
      // runner refuses those too, so they never run).
      let refused: ReturnType<typeof precheckSnippet>;
      try {
        refused = precheckSnippet(code);
      } catch (e) {
        return Promise.resolve(unavailable(`the pre-check failed: ${e instanceof Error ? e.message : String(e)}`));
      }
      if (refused && refused.kind !== "syntax") {
        const kind = refused.kind === "escape" ? OA_DIAGNOSTIC.escapesWrapper : OA_DIAGNOSTIC.moduleAccess;
        return Promise.resolve(failWith(kind, refused.message, refused.line, refused.column));
      }
      if (typeof declarations !== "string") return Promise.resolve(unavailable("the tool declarations are missing"));
      return new Promise<TypecheckResult>((resolve) => {
        queue.push({ code, key: keyOf(declarations), declarations, resolve });
        dispatch();
      });
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) job.resolve(unavailable("the gateway is shutting down"));
      await Promise.all([...checkers].map((c) => c.kill("closing")));
      checkers.clear();
    },
    stats: () => {
      const live = [...checkers].filter((c) => c.state !== "dead");
      return {
        started,
        replaced,
        live: live.length,
        pids: live.map((c) => c.pid),
        checked: counters.checked,
        checkerCpuMs: counters.cpuMs,
        coldChecks: counters.cold,
        practised: [...counters.practised.values()].reduce((a, b) => a + b, 0),
      };
    },
  };
}

function unavailable(why: string): TypecheckResult {
  return failWith(
    OA_DIAGNOSTIC.unavailable,
    `The typechecker is unavailable (${why}); the code was not run. Try again.`,
  );
}

type GoneReason = "start-failed" | "limit" | "crashed" | "closing";

interface CheckerEvents {
  readonly onReady: () => void;
  readonly onIdle: () => void;
  readonly onGone: (why: GoneReason) => void;
}

/** One checker child: starting → idle ⇄ busy → dead. */
class CheckerProcess {
  state: "starting" | "idle" | "busy" | "dead" = "starting";
  /** Resolves true once warm, false if it died first. */
  readonly ready: Promise<boolean>;
  private readonly proc: Subprocess;
  private readonly procStatus: string;
  private markReady!: (ok: boolean) => void;
  private job: (Job & { id: number }) | undefined;
  private seq = 0;
  /** Cancels the running deadline (the start's, then each check's). */
  private cancelDeadline: () => void = () => {};
  private memoryTimer: Timer | undefined;
  /** Keys of declarations this child was sent (it may have evicted some: it then asks again). */
  private readonly sentKeys = new Set<string>();

  constructor(
    private readonly limits: Limits,
    private readonly counters: Counters,
    private readonly events: CheckerEvents,
  ) {
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    const practice = String(Math.max(0, Math.floor(limits.practiceChecks)));
    this.proc = Bun.spawn([process.execPath, "--smol", CHILD_ENTRY, practice], {
      // Nothing from the gateway's environment (no secrets reach the checker) except where Bun
      // keeps its transpiler cache: without it, every checker re-parses the 9 MB TypeScript compiler.
      env: cacheEnv(),
      cwd: import.meta.dir,
      stdin: "ignore",
      stdout: "ignore",
      stderr: "inherit",
      serialization: "json",
      ipc: (m: CheckerReply) => this.onMessage(m),
    });
    this.procStatus = `/proc/${this.proc.pid}/status`;
    this.cancelDeadline = cpuDeadline(
      this.proc.pid,
      { cpuMs: limits.startTimeoutMs, wallCapMs: limits.startTimeoutMs * WALL_CAP_FACTOR },
      () => this.end("start-failed"),
    );
    this.proc.exited.then(
      () => this.end("crashed"),
      () => this.end("crashed"),
    );
  }

  get pid(): number {
    return this.proc.pid;
  }

  run(job: Job): void {
    const id = ++this.seq;
    this.job = { ...job, id };
    this.state = "busy";
    this.send(job.key, job.declarations, id, !this.sentKeys.has(job.key));
    const { timeoutMs, wallTimeoutMs } = this.limits;
    this.cancelDeadline = cpuDeadline(this.proc.pid, { cpuMs: timeoutMs, wallCapMs: wallTimeoutMs }, (why) =>
      this.fail(
        "limit",
        OA_DIAGNOSTIC.tooSlow,
        `The typecheck took too long (${why === "cpu" ? `over ${fmtSeconds(timeoutMs)} of CPU time` : `no answer in ${fmtSeconds(wallTimeoutMs)}`}); the code was not run. Simplify the types (avoid deeply recursive or very large generic types) and try again.`,
      ),
    );
    this.memoryTimer = setInterval(() => this.checkMemory(), MEMORY_POLL_MS);
  }

  /** Has the child build a warm checker for these declarations (it keeps the text, as for a check). */
  prime(key: string, declarations: string): void {
    const withText = !this.sentKeys.has(key);
    this.sentKeys.add(key);
    try {
      this.proc.send({ type: "prime", key, ...(withText ? { declarations } : {}) } satisfies CheckerRequest);
    } catch {
      if (withText) this.sentKeys.delete(key); // the next check sends the text; a dead child is handled by its exit
    }
  }

  kill(why: GoneReason): Promise<unknown> {
    this.end(why);
    return this.proc.exited.catch(() => {});
  }

  private send(key: string, declarations: string, id: number, withText: boolean): void {
    const message: CheckerRequest = withText
      ? { type: "check", id, code: this.job!.code, key, declarations }
      : { type: "check", id, code: this.job!.code, key };
    if (withText) this.sentKeys.add(key);
    try {
      this.proc.send(message);
    } catch (e) {
      this.fail(
        "crashed",
        OA_DIAGNOSTIC.unavailable,
        `The typechecker is unavailable (${e instanceof Error ? e.message : String(e)}); the code was not run. Try again.`,
      );
    }
  }

  private onMessage(m: CheckerReply): void {
    if (this.state === "dead") return;
    if (m.type === "ready" && this.state === "starting") {
      this.cancelDeadline();
      this.state = "idle";
      // An idle checker never keeps the process alive (a pending check does, through its timer).
      this.proc.unref();
      this.markReady(true);
      this.events.onReady();
      return;
    }
    const job = this.job;
    if (!job || !("id" in m) || m.id !== job.id) return;
    if (m.type === "need-declarations") return this.send(job.key, job.declarations, job.id, true);
    if (m.type === "result") {
      this.counters.checked++;
      this.counters.cpuMs += typeof m.cpuMs === "number" ? m.cpuMs : 0;
      if (m.cold) this.counters.cold++;
      if (typeof m.practised === "number") this.counters.practised.set(this.pid, m.practised);
      this.settle();
      job.resolve(m.result);
      this.state = "idle";
      this.events.onIdle();
    }
  }

  private checkMemory(): void {
    let rssKb: number;
    try {
      rssKb = Number(/VmRSS:\s*(\d+)/.exec(readFileSync(this.procStatus, "utf8"))?.[1] ?? 0);
    } catch {
      return; // no /proc (not Linux) or the process just exited
    }
    if (rssKb > this.limits.memoryMb * 1024)
      this.fail(
        "limit",
        OA_DIAGNOSTIC.tooLarge,
        `The typecheck used too much memory (over ${this.limits.memoryMb} MiB); the code was not run. Simplify the types (avoid types that expand into huge unions or deep instantiations) and try again.`,
      );
  }

  private fail(why: GoneReason, code: number, message: string): void {
    const job = this.job;
    this.job = undefined;
    job?.resolve(failWith(code, message));
    this.end(why);
  }

  private settle(): void {
    this.cancelDeadline();
    clearInterval(this.memoryTimer);
    this.job = undefined;
  }

  private end(why: GoneReason): void {
    if (this.state === "dead") return;
    const job = this.job;
    const wasStarting = this.state === "starting";
    this.state = "dead";
    this.settle();
    try {
      this.proc.kill("SIGKILL");
    } catch {
      // already gone
    }
    this.markReady(false); // warmUp() must not wait forever on a checker that will never be ready
    job?.resolve(
      failWith(
        OA_DIAGNOSTIC.unavailable,
        "The typechecker is unavailable (its process exited during the check); the code was not run. Try again.",
      ),
    );
    this.events.onGone(wasStarting && why !== "closing" ? "start-failed" : why);
  }
}

function cacheEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ["HOME", "XDG_CACHE_HOME", "BUN_RUNTIME_TRANSPILER_CACHE_PATH"]) {
    const value = process.env[name];
    if (value) env[name] = value;
  }
  return env;
}

function fmtSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

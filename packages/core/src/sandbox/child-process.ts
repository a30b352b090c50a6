/**
 * The parent's handle on one sandbox child process: spawning, IPC, the active run's tool calls,
 * the CPU watchdog, the wall clock, abort, and killing. A child that dies or misbehaves only
 * fails its own run.
 */
import type { Subprocess } from "bun";
import type { ChildMessage, ParentMessage, WireResult } from "./protocol.ts";
import type {
  ClockRun,
  CrossingError,
  HostCallResult,
  LogLine,
  SandboxErrorName,
  SandboxLimits,
  SandboxResult,
  SandboxRunOptions,
} from "./types.ts";
import { sandboxErrorMessages as msg } from "./messages.ts";
import { mainThreadCpuMs } from "./proc-cpu.ts";
import { BusyClock, unwatch, watch, type Watched } from "./watchdog.ts";

const CHILD_ENTRY = `${import.meta.dir}/child.ts`;

export interface ChildSpawnOptions {
  /** Memory size the child prepares its next QuickJS instance with. */
  readonly memoryBytes: number;
  /** The child is prepared and free: after spawning, and again after each run. */
  readonly onIdle: (child: SandboxChild) => void;
  readonly onExit: (child: SandboxChild) => void;
}

/**
 * starting: spawned, compiling; recycling: finished a run, preparing a fresh instance;
 * idle: prepared and free; running: executing a run; dead: killed or exited.
 */
export type ChildState = "starting" | "idle" | "running" | "recycling" | "dead";

type Failure = { name: SandboxErrorName; message: string };

interface ActiveRun {
  readonly options: SandboxRunOptions;
  readonly limits: SandboxLimits;
  readonly graceMs: number;
  readonly startedAt: number;
  readonly clock: BusyClock;
  /**
   * The child's main-thread CPU clock when the run started (estimated at the watchdog's first
   * busy tick, see checkWatchdog); null where /proc cannot be read.
   */
  cpuBase: number | null | undefined;
  readonly logs: LogLine[];
  readonly toolPaths: ReadonlySet<string>;
  readonly resolve: (result: SandboxResult) => void;
  toolCalls: number;
  answers: WireResult[];
  flushQueued: boolean;
  cleanup: () => void;
}

export class SandboxChild implements Watched {
  readonly exited: Promise<unknown>;
  private readonly proc: Subprocess;
  private seq = 0;
  private run: ActiveRun | undefined;
  private status: ChildState = "starting";
  /** The tool paths sent with the previous run (by identity) and their set. */
  private sentPaths: readonly string[] | undefined;
  private sentPathSet: ReadonlySet<string> = new Set();
  /** For retiring idle children: when this child last became idle. */
  idleSince = performance.now();
  /** Fresh QuickJS instances the child reported prepared (a fuller child takes a run sooner). */
  spares = 0;

  constructor(private readonly spawnOptions: ChildSpawnOptions) {
    this.proc = Bun.spawn([process.execPath, "--smol", CHILD_ENTRY, String(spawnOptions.memoryBytes)], {
      // Nothing from the parent's environment: no secrets can be found in the child.
      env: {},
      cwd: import.meta.dir,
      stdin: "ignore",
      stdout: "ignore",
      stderr: "inherit",
      serialization: "json",
      ipc: (m: ChildMessage) => this.onMessage(m),
    });
    this.exited = this.proc.exited.then(
      (code) => this.onExited(code),
      () => this.onExited(null),
    );
  }

  get state(): ChildState {
    return this.status;
  }

  /** Runs one snippet on this child. Never rejects: every failure becomes a SandboxResult. */
  execute(options: SandboxRunOptions, limits: SandboxLimits, graceMs: number): Promise<SandboxResult> {
    if (this.status !== "idle") throw new Error(`sandbox child is not available (${this.status})`);
    this.status = "running";
    this.spares = Math.max(0, this.spares - 1);
    return new Promise<SandboxResult>((resolve) => {
      const run: ActiveRun = {
        options,
        limits,
        graceMs,
        startedAt: performance.now(),
        clock: new BusyClock(),
        cpuBase: undefined,
        logs: [],
        toolPaths: this.pathSet(options.toolPaths),
        resolve,
        toolCalls: 0,
        answers: [],
        flushQueued: false,
        cleanup: () => {},
      };
      this.run = run;
      const wallTimer = setTimeout(
        () => this.kill({ name: "WallClockError", message: msg.wall(limits.wallMs) }),
        limits.wallMs,
      );
      const onAbort = () => this.kill({ name: "AbortedError", message: msg.aborted });
      options.signal?.addEventListener("abort", onAbort, { once: true });
      run.cleanup = () => {
        clearTimeout(wallTimer);
        options.signal?.removeEventListener("abort", onAbort);
        unwatch(this);
      };
      watch(this);
      const same = this.sentPaths === options.toolPaths;
      this.sentPaths = options.toolPaths;
      this.send({
        t: "run",
        seq: ++this.seq,
        code: options.code,
        ...(same ? {} : { toolPaths: options.toolPaths }),
        limits,
        ...(options.seed ? { seed: options.seed } : {}),
        ...(options.clock ? { clock: options.clock } : {}),
      });
      run.clock.markBusy();
    });
  }

  private pathSet(paths: readonly string[]): ReadonlySet<string> {
    if (paths !== this.sentPaths) this.sentPathSet = new Set(paths);
    return this.sentPathSet;
  }

  /** SIGKILLs the child. The active run (if any) fails with `failure`. */
  kill(failure: Failure = { name: "AbortedError", message: msg.poolClosed }): void {
    if (this.status !== "dead") {
      this.status = "dead";
      try {
        this.proc.kill("SIGKILL");
      } catch {
        // already gone
      }
    }
    this.finish(failure);
  }

  /**
   * Kills a child that has been busy past its CPU budget plus grace, judged on the child's own
   * CPU clock where /proc has it: a child that only waited for a core on a busy host is slow, not
   * stuck, and is left to finish (the run's wall-clock limit still bounds it). Elsewhere the busy
   * wall time is all there is.
   */
  checkWatchdog(now: number): void {
    const run = this.run;
    if (!run || !run.clock.isBusy()) return;
    const busy = run.clock.busyMs(now);
    // Read lazily, so a short run costs no read: the CPU used so far is at most the busy time, so
    // subtracting all of it can only make the run look more expensive, never less.
    if (run.cpuBase === undefined) {
      const cpu = mainThreadCpuMs(this.proc.pid);
      run.cpuBase = cpu === undefined ? null : cpu - busy;
    }
    const budget = run.limits.cpuMs + run.graceMs;
    if (busy <= budget) return;
    const cpu = run.cpuBase === null ? undefined : mainThreadCpuMs(this.proc.pid);
    const used = cpu === undefined || run.cpuBase === null ? busy : cpu - run.cpuBase;
    if (used > budget) this.kill({ name: "CpuLimitError", message: msg.watchdog(run.limits.cpuMs) });
  }

  private send(m: ParentMessage): void {
    try {
      this.proc.send(m);
    } catch {
      this.kill({ name: "SandboxCrashError", message: msg.crash("the sandbox process stopped accepting messages") });
    }
  }

  private onMessage(m: ChildMessage): void {
    if (m.t === "ready") {
      this.spares = typeof m.n === "number" ? m.n : 1;
      if (this.status !== "starting" && this.status !== "recycling") return;
      this.status = "idle";
      this.idleSince = performance.now();
      this.spawnOptions.onIdle(this);
      return;
    }
    const run = this.run;
    if (!run) return;
    if (m.l) appendLogs(run.logs, m.l);
    if (m.t === "done") {
      this.finish(m.outcome.ok ? m.outcome : m.outcome.error, m.cpuMs);
      return;
    }
    if (m.t !== "wait") return;
    if (m.ack === this.seq) run.clock.markIdle();
    if (!m.c) return;
    for (const [id, path, inputJson, clock] of m.c) {
      // Defense in depth: the child already enforces both, a compromised child must not get further.
      if (!run.toolPaths.has(path) || typeof inputJson !== "string") {
        return this.kill({
          name: "SandboxCrashError",
          message: msg.crash("the sandbox asked for a tool outside this run"),
        });
      }
      if (inputJson.length > run.limits.maxInputChars) {
        return this.kill({
          name: "SandboxCrashError",
          message: msg.crash("the sandbox sent a tool input over the size limit"),
        });
      }
      if (++run.toolCalls > run.limits.maxToolCalls) {
        return this.kill({ name: "ToolCallLimitError", message: msg.toolCalls(run.limits.maxToolCalls) });
      }
      // The clock values read before this call are handed over before it: recorded ahead of its effect.
      if (typeof clock === "string") run.options.onClockReads?.(clockValues(clock));
      let answer: Promise<HostCallResult>;
      try {
        answer = run.options.onToolCall(path, inputJson);
      } catch {
        answer = Promise.resolve(hostFailure);
      }
      answer.then(
        (result) => this.answer(run, toWire(id, result)),
        () => this.answer(run, toWire(id, hostFailure)),
      );
    }
  }

  /** Queues an answer; answers settling in the same tick travel in one message. */
  private answer(run: ActiveRun, wire: WireResult): void {
    if (this.run !== run) return;
    run.answers.push(wire);
    if (run.flushQueued) return;
    run.flushQueued = true;
    queueMicrotask(() => {
      run.flushQueued = false;
      if (this.run !== run || run.answers.length === 0) return;
      const r = run.answers;
      run.answers = [];
      run.clock.markBusy();
      this.send({ t: "res", seq: ++this.seq, r });
    });
  }

  private finish(outcome: { ok: true; valueJson?: string } | Failure, childCpuMs?: number): void {
    const run = this.run;
    if (!run) return;
    this.run = undefined;
    if (this.status === "running") this.status = "recycling";
    run.cleanup();
    const stats = {
      cpuMs: childCpuMs ?? run.clock.busyMs(),
      wallMs: performance.now() - run.startedAt,
      toolCalls: run.toolCalls,
    };
    if ("ok" in outcome) run.resolve({ ok: true, valueJson: outcome.valueJson, logs: run.logs, stats });
    else run.resolve({ ok: false, error: { name: outcome.name, message: outcome.message }, logs: run.logs, stats });
  }

  private onExited(code: number | null): void {
    const unexpected = this.status !== "dead";
    this.status = "dead";
    if (unexpected)
      this.finish({ name: "SandboxCrashError", message: msg.crash(`the sandbox process exited with code ${code}`) });
    this.spawnOptions.onExit(this);
  }
}

const hostFailure: HostCallResult = {
  ok: false,
  error: { name: "ToolError", message: "The tool call failed inside the host." },
};

const NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const MAX_ERROR_MESSAGE = 4_000;

/** Only a name, a message and a code cross, as bounded strings. */
function scrub(error: CrossingError): CrossingError {
  const name = typeof error?.name === "string" && NAME.test(error.name) ? error.name : "ToolError";
  const message =
    typeof error?.message === "string" ? error.message.slice(0, MAX_ERROR_MESSAGE) : "The tool call failed.";
  const code = typeof error?.code === "string" ? error.code.slice(0, 100) : undefined;
  return code === undefined ? { name, message } : { name, message, code };
}

function toWire(id: number, result: HostCallResult): WireResult {
  if (result?.ok === true) {
    if (result.json === undefined) return [id];
    if (typeof result.json === "string") return [id, result.json];
    return [id, null, { name: "ToolError", message: "The tool returned a non-JSON result." }];
  }
  if (result?.ok === false) return [id, null, scrub(result.error)];
  return [id, null, { name: "ToolError", message: "The tool call failed inside the host." }];
}

function appendLogs(into: LogLine[], lines: LogLine[]): void {
  for (const line of lines) into.push(line);
}

/** The clock values a call carried ("t,t*n,…"); a part that is not a finite value (and a positive count) is left out. */
function clockValues(text: string): ClockRun[] {
  const out: ClockRun[] = [];
  for (const part of text.split(",")) {
    const star = part.indexOf("*");
    const t = Number(star < 0 ? part : part.slice(0, star));
    const n = star < 0 ? 1 : Number(part.slice(star + 1));
    if (Number.isFinite(t) && Number.isSafeInteger(n) && n > 0) out.push([t, n]);
  }
  return out;
}

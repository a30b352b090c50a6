/**
 * Drives one snippet inside a fresh QuickJS instance. Transport-agnostic: the caller forwards
 * the tool calls the VM makes (`host.wait`) and feeds answers back (`deliver`). In production it
 * runs inside a sandbox child process (see child.ts); nothing here is a boundary on its own
 * without the child's process isolation and the parent's watchdog.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, VmCallResult } from "quickjs-emscripten-core";
import type { ChildOutcome, WireCall, WireResult } from "./protocol.ts";
import { PRELUDE_SOURCE } from "./vm-prelude.ts";
import { newQuickJSInstance, type QuickJSInstance } from "./quickjs.ts";
import type { ClockRun, LogLine, SandboxErrorName, SandboxLimits } from "./types.ts";
import { sandboxErrorMessages as msg } from "./messages.ts";

export interface VmRunHost {
  /** The VM is idle until answers arrive. `calls` were made since the last wait. */
  wait(calls: WireCall[], logs: LogLine[]): void;
  /** The run ended; no further calls into this VmRun are allowed. */
  done(outcome: ChildOutcome, cpuMs: number, logs: LogLine[]): void;
}

export interface VmRunInput {
  readonly code: string;
  readonly toolPaths: readonly string[];
  readonly limits: SandboxLimits;
  /** Four 32-bit words seeding `Math.random` (a resumed run passes its recorded ones); absent: drawn now. */
  readonly seed?: readonly number[];
  /** The clock values a resumed run's snippet read before, given again in order (then the real clock). */
  readonly clock?: readonly ClockRun[];
}

interface Helpers {
  readonly buildTools: QuickJSHandle;
  readonly settleAll: QuickJSHandle;
  readonly settleValue: QuickJSHandle;
  readonly classify: QuickJSHandle;
  readonly watch: QuickJSHandle;
  readonly configure: QuickJSHandle;
}

/** A QuickJS instance with the prelude evaluated, waiting for exactly one run. */
export interface PreparedVm {
  readonly instance: QuickJSInstance;
  readonly runtime: QuickJSRuntime;
  readonly context: QuickJSContext;
  readonly helpers: Helpers;
  active: VmRun | undefined;
  /** The tool paths whose `tools` object is already built in this VM (see preloadTools). */
  toolsKey?: string;
  /** The pristine memory right after the prelude, before any `tools` object was built. */
  base: Snapshot;
  /** The pristine memory as a run will get it (`base`, or taken again once `tools` was built), and its `toolsKey`. */
  snapshot: Snapshot;
  snapshotToolsKey: string | undefined;
  /** A run trapped inside the WASM (the instance's state is unknown): it is never restored. */
  poisoned: boolean;
}

export const toolsKeyOf = (toolPaths: readonly string[]) => toolPaths.join("\n");

/**
 * Builds the `tools` object of a prepared VM ahead of its run. Building it costs ~20 µs per tool
 * inside QuickJS; the child does it while idle, for the tool paths of its previous run, so a
 * gateway with hundreds of tools does not pay it on every run.
 */
export function preloadTools(vm: PreparedVm, toolPaths: readonly string[]): void {
  if (vm.active || vm.toolsKey !== undefined) return;
  const ctx = vm.context;
  const paths = ctx.newString(JSON.stringify(toolPaths));
  const result = ctx.callFunction(vm.helpers.buildTools, ctx.undefined, paths);
  paths.dispose();
  if (result.error) {
    result.error.dispose();
    throw new Error("could not build the tools object");
  }
  result.value.dispose();
  vm.toolsKey = toolsKeyOf(toolPaths);
  takeSnapshot(vm);
}

/**
 * Records the VM's whole linear memory as it is now, between runs (no WASM frame active), so
 * `restoreVm` can put back every byte of it. Everything QuickJS and its allocator know lives in
 * that memory; the only WASM global that moves, the stack pointer, is back at its base between
 * calls. What lies past the last non-zero byte is zero, and is zeroed again on restore.
 */
function takeSnapshot(vm: PreparedVm): void {
  vm.snapshot = capture(vm.instance.memory);
  vm.snapshotToolsKey = vm.toolsKey;
}

/** The non-zero 64 KB pages of a memory (most of QuickJS's 5 MB stack region is never written). */
type Snapshot = ReadonlyArray<readonly [offset: number, bytes: Uint8Array]>;
const PAGE_BYTES = 64 * 1024;
const ZERO_PAGE = Buffer.alloc(PAGE_BYTES);

function capture(memory: WebAssembly.Memory): Snapshot {
  const bytes = Buffer.from(memory.buffer);
  const pages: Array<readonly [number, Uint8Array]> = [];
  // Compared in native code: a JS loop over 16 MB costs ~100 ms before the JIT warms up.
  for (let offset = 0; offset + PAGE_BYTES <= bytes.length; offset += PAGE_BYTES) {
    const page = bytes.subarray(offset, offset + PAGE_BYTES);
    if (!page.equals(ZERO_PAGE)) pages.push([offset, Uint8Array.prototype.slice.call(page)]);
  }
  return pages;
}

function apply(memory: WebAssembly.Memory, snapshot: Snapshot): void {
  const bytes = new Uint8Array(memory.buffer);
  let at = 0;
  for (const [offset, page] of snapshot) {
    if (offset > at) bytes.fill(0, at, offset);
    bytes.set(page, offset);
    at = offset + page.length;
  }
  bytes.fill(0, at);
}

/**
 * Writes every page of the VM's memory once (by restoring it), so the first restore after a run
 * does not fault in the pages nothing touched yet (~4,000 page faults for 16 MB, 30–60 ms on a busy
 * VM). A child does this while idle, right after preparing an instance.
 */
export function prefault(vm: PreparedVm): void {
  restoreVm(vm);
}

/** The VM can be put back to its snapshot: no trap, and its memory did not grow. */
export function isRestorable(vm: PreparedVm): boolean {
  return !vm.poisoned && vm.active === undefined && vm.instance.memory.buffer.byteLength === vm.instance.initialBytes;
}

/**
 * Puts a used VM back into the state of its snapshot: every non-zero page of it, and zeros
 * everywhere else up to the end of the memory, so nothing of the previous run survives (about
 * 1–2 ms for 16 MB, against 3–6 ms and a garbage-collected 16 MB memory for a new instance).
 * Given other tool paths than the snapshot's `tools` object was built for, it goes back to the
 * state before any `tools` object (the run then builds its own).
 */
export function restoreVm(vm: PreparedVm, toolPaths?: readonly string[]): void {
  if (!isRestorable(vm)) throw new Error("this VM cannot be restored");
  if (toolPaths && vm.snapshotToolsKey !== undefined && vm.snapshotToolsKey !== toolsKeyOf(toolPaths)) {
    vm.snapshot = vm.base;
    vm.snapshotToolsKey = undefined;
  }
  apply(vm.instance.memory, vm.snapshot);
  vm.toolsKey = vm.snapshotToolsKey;
}

const MAX_STACK_BYTES = 512 * 1024;
/**
 * Bound on a ScriptError's text. The prelude already clips names and messages; this holds even if
 * it could not (a snippet's error text must never bypass the output and log limits).
 */
export const MAX_ERROR_CHARS = 4_000;
const clipError = (text: string) =>
  text.length <= MAX_ERROR_CHARS
    ? text
    : `${text.slice(0, MAX_ERROR_CHARS)}… (${text.length - MAX_ERROR_CHARS} more characters)`;
const LOG_LEVELS = new Set<LogLine["level"]>(["log", "info", "warn", "error", "debug"]);

/**
 * A new VM with the prelude evaluated. `whenIdle` is awaited between the (asynchronous) WASM
 * instantiation and the synchronous rest, so a child preparing ahead does that part only while no
 * run is executing.
 */
export async function prepareVm(memoryBytes: number, whenIdle?: () => Promise<void>): Promise<PreparedVm> {
  const instance = await newQuickJSInstance(memoryBytes);
  if (whenIdle) await whenIdle();
  const runtime = instance.module.newRuntime();
  runtime.setMemoryLimit(instance.memoryBytes);
  // QuickJS must hit its own stack check before the host's native stack (which runs the WASM
  // frames) overflows; 512 KB allows ~2700 plain JS frames.
  runtime.setMaxStackSize(MAX_STACK_BYTES);
  const context = runtime.newContext();
  let vm: PreparedVm | undefined;
  // Host functions: only strings come in, only booleans go out. They never throw host errors
  // into the VM (those could carry host paths).
  const hostCall = context.newFunction("hostCall", (packed, clock) => {
    const run = vm?.active;
    if (!run) return { error: context.newError({ name: "ToolError", message: "no active run" }) };
    return run.onHostCall(context.getString(packed), clock === undefined ? undefined : context.getString(clock));
  });
  const hostLog = context.newFunction("hostLog", (level, text) => {
    const accepted = vm?.active?.onLog(context.getString(level), context.getString(text)) ?? false;
    return accepted ? context.true : context.false;
  });
  const hostDone = context.newFunction("hostDone", (kind, text) => {
    vm?.active?.onSettled(context.getString(kind), context.getString(text));
  });
  const factory = context.unwrapResult(context.evalCode(PRELUDE_SOURCE, "sandbox-prelude.js"));
  const api = context.unwrapResult(context.callFunction(factory, context.undefined, hostCall, hostLog, hostDone));
  const helpers: Helpers = {
    buildTools: context.getProp(api, "buildTools"),
    settleAll: context.getProp(api, "settleAll"),
    settleValue: context.getProp(api, "settleValue"),
    classify: context.getProp(api, "classify"),
    watch: context.getProp(api, "watch"),
    configure: context.getProp(api, "configure"),
  };
  // One interrupt handler for the VM's life, set before the snapshot: QuickJS keeps whether it is
  // enabled inside its own memory, which a restore puts back.
  runtime.setInterruptHandler(() => vm?.active?.onInterrupt() ?? false);
  // Handles quickjs-emscripten creates lazily must exist before the snapshot, not inside a run.
  void [context.undefined, context.true, context.false, context.null, context.global];
  const base = capture(instance.memory);
  vm = {
    instance,
    runtime,
    context,
    helpers,
    active: undefined,
    base,
    snapshot: base,
    snapshotToolsKey: undefined,
    poisoned: false,
  };
  return vm;
}

type Failure = { name: SandboxErrorName; message: string };

/**
 * CPU time of this thread in ms: the thread the VM runs on. Unlike wall time it does not grow
 * when the machine is busy with other work, nor while the run waits for tools; unlike the
 * process's CPU time it leaves out the runtime's own threads (JIT and WebAssembly tier-up
 * compilers, the collector's helpers), which in a young child spend more than a short run does.
 * Linux counts it in scheduler ticks (steps of 1–4 ms here), which is ample for a budget; the
 * process's total is µs-precise but not the run's alone. It costs a system call (~0.5 µs), so it
 * is read at the start and end of a run, by the interrupt handler, and after a slice that took
 * over a millisecond; not on every tool crossing.
 */
function cpuNow(): number {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
}

const fail = (name: SandboxErrorName, message: string) => ({ ok: false as const, error: { name, message } });

export class VmRun {
  private readonly ctx: QuickJSContext;
  private readonly limits: SandboxLimits;
  /** Process CPU used since the run started, as last read. */
  private cpuMs = 0;
  private readonly cpuStart = cpuNow();
  private toolCalls = 0;
  private inFlight = 0;
  /** Paths of the calls sent to the host and not answered yet, by call id. */
  private readonly pendingPaths = new Map<number, string>();
  private outbox: WireCall[] = [];
  private unsentLogs: LogLine[] = [];
  private logBytes = 0;
  private logsFull = false;
  private interrupted = false;
  private failure: Failure | undefined;
  private settled: ChildOutcome | undefined;
  private main: QuickJSHandle | undefined;
  private readonly toolPaths: ReadonlySet<string>;
  private finished = false;

  constructor(
    private readonly vm: PreparedVm,
    private readonly input: VmRunInput,
    private readonly host: VmRunHost,
  ) {
    if (vm.active) throw new Error("a prepared VM can serve only one run");
    vm.active = this;
    this.ctx = vm.context;
    this.limits = input.limits;
    this.toolPaths = new Set(input.toolPaths);
  }

  /** Called by QuickJS every few thousand operations: true stops the VM. */
  onInterrupt(): boolean {
    if (this.failure) return true;
    if (cpuNow() - this.cpuStart > this.limits.cpuMs) {
      this.interrupted = true;
      return true;
    }
    return false;
  }

  start(): void {
    this.slice(() => {
      const ctx = this.ctx;
      if (this.vm.toolsKey !== toolsKeyOf(this.input.toolPaths)) {
        if (this.vm.toolsKey !== undefined) {
          this.failure = { name: "SandboxCrashError", message: msg.crash("the prepared VM was built for other tools") };
          return;
        }
        const paths = ctx.newString(JSON.stringify(this.input.toolPaths));
        if (!this.ok(ctx.callFunction(this.vm.helpers.buildTools, ctx.undefined, paths))) return;
      }
      // The wrapper takes line 1; the prelude's `describe` shifts "snippet.js:N" back by one.
      const seed = this.input.seed ?? crypto.getRandomValues(new Uint32Array(4));
      const configure = [this.limits.maxInputChars, this.limits.maxLogBytes, ...seed].map((n) => ctx.newNumber(n));
      if (this.input.clock) configure.push(ctx.newString(JSON.stringify(this.input.clock)));
      if (!this.ok(ctx.callFunction(this.vm.helpers.configure, ctx.undefined, ...configure))) return;
      const result = ctx.evalCode(`(async () => {\n${this.input.code}\n})()`, "snippet.js");
      if (result.error) return this.failFromVm(result.error);
      this.main = result.value;
      const max = ctx.newNumber(this.limits.maxOutputBytes);
      this.ok(ctx.callFunction(this.vm.helpers.watch, ctx.undefined, this.main, max));
    });
  }

  deliver(results: readonly WireResult[]): void {
    if (this.finished) return;
    const only = results.length === 1 ? results[0]! : undefined;
    if (only && typeof only[1] === "string" && only[2] === undefined) {
      // The common case (one awaited call answered with a value): the VM needs no batch to take apart.
      const [id, json] = only;
      this.inFlight--;
      this.pendingPaths.delete(id);
      this.slice(() => {
        const ctx = this.ctx;
        const idHandle = ctx.newNumber(id);
        const text = ctx.newString(json);
        this.ok(ctx.callFunction(this.vm.helpers.settleValue, ctx.undefined, idHandle, text));
        text.dispose();
        idHandle.dispose();
      });
      return;
    }
    let batch = "";
    for (const [id, json, error] of results) {
      this.inFlight--;
      this.pendingPaths.delete(id);
      if (error) {
        const payload = JSON.stringify({ name: error.name, message: error.message, code: error.code });
        batch += `${id}:e:${payload.length}:${payload}`;
      } else if (typeof json === "string") batch += `${id}:v:${json.length}:${json}`;
      else batch += `${id}:u:0:`;
    }
    this.slice(() => {
      const ctx = this.ctx;
      const text = ctx.newString(batch);
      this.ok(ctx.callFunction(this.vm.helpers.settleAll, ctx.undefined, text));
      text.dispose();
    });
  }

  // ---- called by the VM's host functions ----------------------------------------------------

  onHostCall(packed: string, clock?: string): VmCallResult<QuickJSHandle> | undefined {
    if (++this.toolCalls > this.limits.maxToolCalls) {
      this.failure ??= { name: "ToolCallLimitError", message: msg.toolCalls(this.limits.maxToolCalls) };
      return { error: this.ctx.newError({ name: "ToolCallLimitError", message: "too many tool calls" }) };
    }
    const a = packed.indexOf("\n");
    const b = packed.indexOf("\n", a + 1);
    const id = Number(packed.slice(0, a));
    const path = packed.slice(a + 1, b);
    if (!Number.isSafeInteger(id) || b < 0 || !this.toolPaths.has(path)) {
      this.failure ??= { name: "SandboxCrashError", message: msg.crash("the VM made a malformed tool call") };
      return { error: this.ctx.newError({ name: "ToolError", message: "malformed tool call" }) };
    }
    this.inFlight++;
    this.pendingPaths.set(id, path);
    this.outbox.push(clock === undefined ? [id, path, packed.slice(b + 1)] : [id, path, packed.slice(b + 1), clock]);
    return undefined;
  }

  /** The snippet's main promise settled (reported by the prelude's `watch`). */
  onSettled(kind: string, text: string): void {
    if (this.settled || this.failure) return;
    const max = this.limits.maxOutputBytes;
    if (kind === "ok") {
      const bytes = Buffer.byteLength(text);
      this.settled =
        bytes > max ? fail("OutputLimitError", msg.output(String(bytes), max)) : { ok: true, valueJson: text };
    } else if (kind === "none") this.settled = { ok: true };
    else if (kind === "big") this.settled = fail("OutputLimitError", msg.output(`at least ${text}`, max));
    else if (kind === "oom") this.settled = fail("MemoryLimitError", msg.memory(this.limits.memoryBytes));
    else if (kind === "stack") this.settled = fail("StackOverflowError", msg.stack);
    else this.settled = fail("ScriptError", clipError(text));
  }

  onLog(level: string, text: string): boolean {
    if (this.logsFull) return false;
    const lvl = LOG_LEVELS.has(level as LogLine["level"]) ? (level as LogLine["level"]) : "log";
    const room = this.limits.maxLogBytes - this.logBytes;
    const bytes = Buffer.byteLength(text) + 1;
    if (bytes <= room) {
      this.logBytes += bytes;
      this.unsentLogs.push({ level: lvl, text });
      return true;
    }
    this.logsFull = true;
    const kept = Buffer.from(text)
      .subarray(0, Math.max(0, room - 1))
      .toString()
      .replace(/\uFFFD$/, "");
    if (kept.length > 0) this.unsentLogs.push({ level: lvl, text: kept });
    this.unsentLogs.push({ level: "warn", text: msg.logsTruncated(this.limits.maxLogBytes) });
    return false;
  }

  // ---- internals ---------------------------------------------------------------------------

  /** Runs `fn` and all pending jobs with the CPU clock running, then decides what happens next. */
  private slice(fn: () => void): void {
    this.inVm(() => {
      fn();
      this.drainJobs();
    });
    this.afterSlice();
  }

  private inVm(fn: () => void): void {
    const sliceStart = performance.now();
    try {
      fn();
    } catch (e) {
      this.onHostException(e);
    } finally {
      if (performance.now() - sliceStart > 1) this.cpuMs = cpuNow() - this.cpuStart;
    }
  }

  private drainJobs(): void {
    // Runs jobs until the queue is empty; it only returns early on an uncatchable error.
    const result = this.vm.runtime.executePendingJobs(-1);
    if (result.error) this.failFromVm(result.error);
  }

  private ok(result: VmCallResult<QuickJSHandle>): boolean {
    if (result.error) {
      this.failFromVm(result.error);
      return false;
    }
    result.value.dispose();
    return true;
  }

  private afterSlice(): void {
    if (this.finished) return;
    const limit = this.limitFailure();
    if (limit) return this.end({ ok: false, error: limit });
    if (this.settled) return this.end(this.settled);
    if (this.inFlight > 0) {
      const calls = this.outbox;
      this.outbox = [];
      this.host.wait(calls, this.takeLogs());
      return;
    }
    // Nothing in flight and no settlement reported. Normally a deadlock; but if the prelude could
    // not report (e.g. out of memory while describing the error), look at the promise directly.
    const state = this.main ? this.ctx.getPromiseState(this.main) : undefined;
    if (state?.type === "rejected") {
      this.inVm(() => this.failFromVm(state.error));
      return this.end({ ok: false, error: this.limitFailure() ?? fail("ScriptError", "Uncaught exception").error });
    }
    if (state?.type === "fulfilled")
      return this.end(fail("SandboxCrashError", msg.crash("the result could not be read")));
    this.end(fail("DeadlockError", msg.deadlock));
  }

  /** A limit that overrides whatever the VM itself reported. */
  private limitFailure(): Failure | undefined {
    if (this.failure && this.failure.name !== "ScriptError") return this.failure;
    if (this.interrupted || this.cpuMs > this.limits.cpuMs)
      return { name: "CpuLimitError", message: msg.cpu(this.limits.cpuMs) };
    return this.failure;
  }

  /** Turns an exception handle from the VM into the run's failure (first one wins). */
  private failFromVm(error: QuickJSHandle): void {
    if (this.failure || this.interrupted) return;
    const ctx = this.ctx;
    const described = ctx.callFunction(this.vm.helpers.classify, ctx.undefined, error);
    if (described.error) {
      this.failure = this.memoryExhausted()
        ? { name: "MemoryLimitError", message: msg.memory(this.limits.memoryBytes) }
        : { name: "ScriptError", message: "Uncaught exception (it could not be described)" };
      return;
    }
    const text = ctx.getString(described.value);
    const newline = text.indexOf("\n");
    const kind = text.slice(0, newline);
    const description = text.slice(newline + 1);
    if (kind === "oom") this.failure = { name: "MemoryLimitError", message: msg.memory(this.limits.memoryBytes) };
    else if (kind === "stack") this.failure = { name: "StackOverflowError", message: msg.stack };
    else this.failure = { name: "ScriptError", message: clipError(description) };
  }

  /** The WASM itself trapped (e.g. an allocation failed deep inside QuickJS): the VM is unusable. */
  private onHostException(e: unknown): void {
    this.vm.poisoned = true;
    if (this.failure && this.failure.name !== "ScriptError") return;
    if (this.interrupted) return;
    // The host's own stack overflowed while running WASM frames (deep recursion through built-ins).
    if (e instanceof RangeError && /call stack/i.test(e.message))
      this.failure = { name: "StackOverflowError", message: msg.stack };
    else
      this.failure = this.memoryExhausted()
        ? { name: "MemoryLimitError", message: msg.memory(this.limits.memoryBytes) }
        : { name: "SandboxCrashError", message: msg.crash(e instanceof Error ? e.name : "unknown failure") };
  }

  private memoryExhausted(): boolean {
    const { memory, memoryBytes } = this.vm.instance;
    return memory.buffer.byteLength >= memoryBytes - 2 * 1024 * 1024;
  }

  /**
   * The run ended with tool calls not awaited. Calls the host never received are dropped (they
   * never run and leave no receipt); calls already sent finish on the host (and are receipted) but
   * their results are lost, and nothing chained on them runs. Say so, so the model does not assume
   * a call it started but did not await took effect.
   */
  private warnAboutPendingCalls(): void {
    const unsentIds = new Set(this.outbox.map(([id]) => id));
    const unsent = this.outbox.map(([, path]) => path);
    const sent = [...this.pendingPaths].filter(([id]) => !unsentIds.has(id)).map(([, path]) => path);
    if (sent.length === 0 && unsent.length === 0) return;
    this.unsentLogs.push({ level: "warn", text: msg.pendingCalls(unsent, sent) });
  }

  private takeLogs(): LogLine[] {
    const logs = this.unsentLogs;
    this.unsentLogs = [];
    return logs;
  }

  private end(outcome: ChildOutcome): void {
    if (this.finished) return;
    this.finished = true;
    this.vm.active = undefined;
    this.warnAboutPendingCalls();
    // The whole WASM instance is dropped with the run, so handles are not disposed one by one.
    this.host.done(outcome, cpuNow() - this.cpuStart, this.takeLogs());
  }
}

/**
 * Entry point of a sandbox child process (`bun --smol child.ts <memoryBytes>`), spawned by the
 * pool with an empty environment. Runs one snippet at a time; talks to the parent only over IPC.
 * The WASM module is compiled once. Every run starts on a pristine QuickJS instance: a new one, or
 * a used one whose whole memory was put back to the snapshot taken when it was new (see
 * `restoreVm`). Pristine instances are prepared ahead, while the child is idle, and more than one
 * is kept: a run that follows right after another still finds one ready.
 */
import type { ChildMessage, ParentMessage } from "./protocol.ts";
import { compileQuickJS } from "./quickjs.ts";
import {
  isRestorable,
  prefault,
  preloadTools,
  prepareVm,
  restoreVm,
  toolsKeyOf,
  VmRun,
  type PreparedVm,
} from "./vm-run.ts";
import { sandboxErrorMessages as msg } from "./messages.ts";
import { PRACTICE_AFTER_MS, PRACTICE_RUNS, practise } from "./practice.ts";

const send = (m: ChildMessage) => process.send!(m);

/** Fresh instances kept prepared; each is used by exactly one run and then dropped. */
const SPARES = 2;

/** Prepared, unused instances (memory size each was made with, and its built `tools`, if any). */
const spares: Array<{ memoryBytes: number; vm: PreparedVm }> = [];
/** Used instances waiting to be restored to their snapshot. */
const used: Array<{ memoryBytes: number; vm: PreparedVm }> = [];
let current: VmRun | undefined;
/** Tool paths of the previous run; a run message without paths means "the same". */
let lastToolPaths: readonly string[] = [];
let lastMemoryBytes = Number(process.argv[2]) || 64 * 1024 * 1024;
let lastSeq = 0;
let filling = false;
/**
 * A new child prepares all its spares before it first says it is ready: making an instance in a
 * fresh process takes 100 ms or more (the WASM code is still being optimized), and a run sent
 * meanwhile would wait behind it.
 */
let started = false;

/** Yields to the event loop, so a run or an answer that arrives meanwhile is served first. */
const yieldToMessages = () => new Promise<void>((resolve) => setImmediate(resolve));
let runEnded: Array<() => void> = [];
/** Resolves once no run is executing (a run may wait minutes for an approval: no polling). */
async function noRun(): Promise<void> {
  while (current) await new Promise<void>((resolve) => runEnded.push(resolve));
}

/** Tells the parent this child is free, and how many fresh instances it holds (it prefers fuller children). */
function announceReady(): void {
  if (current || spares.length === 0 || !started) return;
  send({ t: "ready", n: spares.length });
}

/**
 * Tops the spares up while the child is idle. Instances are made one step at a time, yielding in
 * between, and never while a run is executing (a run's tool answers are not delayed by it).
 */
async function fill(): Promise<void> {
  if (filling) return;
  filling = true;
  try {
    while (spares.length < SPARES) {
      await noRun();
      const memoryBytes = lastMemoryBytes;
      const toolPaths = lastToolPaths;
      const reuse = takeUsed(memoryBytes);
      if (reuse) restoreVm(reuse, toolPaths);
      const vm = reuse ?? (await prepareVm(memoryBytes, noRun));
      await yieldToMessages();
      await noRun();
      if (!reuse) {
        prefault(vm);
        await yieldToMessages();
        await noRun();
      }
      if (toolPaths.length > 0 && toolPaths === lastToolPaths && vm.toolsKey === undefined) preloadTools(vm, toolPaths);
      spares.push({ memoryBytes, vm });
      announceReady();
      await yieldToMessages();
    }
  } catch {
    process.exit(70); // cannot create instances: let the pool replace this process
  } finally {
    filling = false;
  }
}

/**
 * Making an instance blocks this child for a few ms, so with a spare still at hand it waits until
 * the child has been idle a moment: a run that follows right away (a repair round, a burst) starts
 * on the spare instead of waiting behind the preparation.
 */
const FILL_AFTER_IDLE_MS = 10;
let fillTimer: ReturnType<typeof setTimeout> | undefined;
function scheduleFill(): void {
  if (fillTimer) clearTimeout(fillTimer);
  fillTimer = undefined;
  if (spares.length === 0) return void fill();
  fillTimer = setTimeout(() => {
    fillTimer = undefined;
    void fill();
  }, FILL_AFTER_IDLE_MS);
}

/** A used instance of this memory size that can be restored (the others are dropped). */
function takeUsed(memoryBytes: number): PreparedVm | undefined {
  while (used.length > 0) {
    const entry = used.pop()!;
    if (entry.memoryBytes === memoryBytes && isRestorable(entry.vm)) return entry.vm;
  }
  return undefined;
}

/**
 * A spare made for this memory size (the others are dropped). One whose `tools` object was built
 * for other tool paths is first put back to its state before any `tools` object.
 */
function takeSpare(memoryBytes: number, toolPaths: readonly string[]): PreparedVm | undefined {
  const key = toolsKeyOf(toolPaths);
  while (spares.length > 0) {
    const spare = spares.shift()!;
    if (spare.memoryBytes !== memoryBytes) continue;
    if (spare.vm.toolsKey !== undefined && spare.vm.toolsKey !== key) restoreVm(spare.vm, toolPaths);
    return spare.vm;
  }
  return undefined;
}

function restored(memoryBytes: number, toolPaths: readonly string[]): PreparedVm | undefined {
  const vm = takeUsed(memoryBytes);
  if (vm) restoreVm(vm, toolPaths);
  return vm;
}

async function startRun(m: Extract<ParentMessage, { t: "run" }>): Promise<void> {
  if (fillTimer) clearTimeout(fillTimer);
  fillTimer = undefined;
  lastSeq = m.seq;
  const toolPaths = (lastToolPaths = m.toolPaths ?? lastToolPaths);
  lastMemoryBytes = m.limits.memoryBytes;
  let vm: PreparedVm;
  try {
    vm =
      takeSpare(m.limits.memoryBytes, toolPaths) ??
      restored(m.limits.memoryBytes, toolPaths) ??
      (await prepareVm(m.limits.memoryBytes));
  } catch (_e) {
    send({
      t: "done",
      outcome: {
        ok: false,
        error: { name: "SandboxCrashError", message: msg.crash("the QuickJS instance could not be created") },
      },
      cpuMs: 0,
    });
    scheduleFill();
    return;
  }
  const run = new VmRun(
    vm,
    {
      code: m.code,
      toolPaths,
      limits: m.limits,
      ...(m.seed ? { seed: m.seed } : {}),
      ...(m.clock ? { clock: m.clock } : {}),
    },
    {
      wait(calls, logs) {
        const out: { t: "wait"; ack: number; c?: typeof calls; l?: typeof logs } = { t: "wait", ack: lastSeq };
        if (calls.length) out.c = calls;
        if (logs.length) out.l = logs;
        send(out);
      },
      done(outcome, cpuMs, logs) {
        current = undefined;
        // At most SPARES instances besides the running one (each holds 16 MB and its snapshot).
        if (spares.length + used.length < SPARES && isRestorable(vm))
          used.push({ memoryBytes: m.limits.memoryBytes, vm });
        const waiting = runEnded;
        runEnded = [];
        for (const resume of waiting) resume();
        send(logs.length ? { t: "done", outcome, cpuMs, l: logs } : { t: "done", outcome, cpuMs });
        announceReady();
        scheduleFill();
      },
    },
  );
  current = run;
  run.start();
}

process.on("message", (m: ParentMessage) => {
  if (m.t === "run") {
    void startRun(m);
  } else if (m.t === "res") {
    lastSeq = m.seq;
    current?.deliver(m.r);
  }
});
// The parent went away: nothing left to serve.
process.on("disconnect", () => process.exit(0));

await compileQuickJS();
await fill();
started = true;
announceReady();
// After a quiet moment (a starting gateway or a burst of runs keeps the CPU busy), and only
// between runs, one at a time; a child that cannot practise still serves runs.
await Bun.sleep(PRACTICE_AFTER_MS);
void practise(PRACTICE_RUNS, async () => {
  await yieldToMessages();
  await noRun();
}).catch(() => {});

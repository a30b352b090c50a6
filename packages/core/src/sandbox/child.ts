/**
 * Entry point of a sandbox child process (`bun --smol child.ts <memoryBytes>`), spawned by the
 * pool with an empty environment. Runs one snippet at a time; talks to the parent only over IPC.
 * The WASM module is compiled once; a fresh QuickJS instance is prepared ahead for the next run.
 */
import type { ChildMessage, ParentMessage } from "./protocol.ts";
import { compileQuickJS } from "./quickjs.ts";
import { preloadTools, prepareVm, toolsKeyOf, VmRun, type PreparedVm } from "./runner.ts";
import { sandboxErrorMessages as msg } from "./messages.ts";

const send = (m: ChildMessage) => process.send!(m);

/** The instance for the next run; `toolsKey` when its `tools` object is already built. */
let nextVm: { memoryBytes: number; toolsKey?: string; vm: Promise<PreparedVm> } | undefined;
let current: VmRun | undefined;
/** Tool paths of the previous run; a run message without paths means "the same". */
let lastToolPaths: readonly string[] = [];
let lastSeq = 0;

/**
 * Prepares the next run's QuickJS instance (with the previous run's tools already built: runs of
 * one gateway almost always share them), then tells the parent this child is ready again.
 */
function prepareNext(memoryBytes: number, toolPaths?: readonly string[]): void {
  const toolsKey = toolPaths ? toolsKeyOf(toolPaths) : undefined;
  const vm = prepareVm(memoryBytes).then((prepared) => {
    if (toolPaths) preloadTools(prepared, toolPaths);
    return prepared;
  });
  nextVm = { memoryBytes, toolsKey, vm };
  vm.then(
    () => send({ t: "ready" }),
    () => process.exit(70), // cannot create instances: let the pool replace this process
  );
}

function takeVm(memoryBytes: number, toolPaths: readonly string[]): Promise<PreparedVm> {
  const ready = nextVm;
  nextVm = undefined;
  const fits = ready && ready.memoryBytes === memoryBytes && (ready.toolsKey === undefined || ready.toolsKey === toolsKeyOf(toolPaths));
  return fits ? ready.vm : prepareVm(memoryBytes);
}

async function startRun(m: Extract<ParentMessage, { t: "run" }>): Promise<void> {
  lastSeq = m.seq;
  const toolPaths = (lastToolPaths = m.toolPaths ?? lastToolPaths);
  let vm: PreparedVm;
  try {
    vm = await takeVm(m.limits.memoryBytes, toolPaths);
  } catch (e) {
    send({ t: "done", outcome: { ok: false, error: { name: "SandboxCrashError", message: msg.crash("the QuickJS instance could not be created") } }, cpuMs: 0 });
    return;
  }
  const run = new VmRun(vm, { code: m.code, toolPaths, limits: m.limits }, {
    wait(calls, logs) {
      const out: { t: "wait"; ack: number; c?: typeof calls; l?: typeof logs } = { t: "wait", ack: lastSeq };
      if (calls.length) out.c = calls;
      if (logs.length) out.l = logs;
      send(out);
    },
    done(outcome, cpuMs, logs) {
      current = undefined;
      send(logs.length ? { t: "done", outcome, cpuMs, l: logs } : { t: "done", outcome, cpuMs });
      prepareNext(m.limits.memoryBytes, toolPaths);
    },
  });
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

const memoryBytes = Number(process.argv[2]) || 64 * 1024 * 1024;
await compileQuickJS();
prepareNext(memoryBytes);

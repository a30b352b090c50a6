/**
 * What sleeping costs a tool crossing on this machine. The same QuickJS slice (deliver an answer,
 * run the snippet to its next tool call) is timed three ways: answered at once in the same thread
 * (the thread never sleeps), answered after a round trip to another process over Bun IPC, and after
 * a round trip to a Worker thread. The thread sleeps during both round trips; the slice that
 * follows runs slower, and that difference is paid on both sides of every sandbox crossing. Also
 * the wall time of one `send` to a sleeping peer (it includes waking it). Rounds interleave the modes.
 */
import { join } from "node:path";
import { prepareVm, restoreVm, VmRun } from "../packages/core/src/sandbox/vm-run.ts";
import { defaultSandboxLimits } from "../packages/core/src/sandbox/types.ts";
import { printTable, quantiles } from "./lib.ts";

const CALLS = 1000;
const ROUNDS = 7;
const code = `let n = 0; for (let i = 0; i < ${CALLS}; i++) n += (await tools.calendar.get({ id: i })).id; return n;`;
const answer = { t: "res", seq: 1, r: [[1, '{"id":7}']] };

const vm = await prepareVm(defaultSandboxLimits.memoryBytes);
let fromChild: () => void = () => {};
const child = Bun.spawn([process.execPath, "--smol", join(import.meta.dir, "transport.child.ts"), "ipc"], {
  serialization: "json",
  stdin: "ignore",
  stdout: "ignore",
  stderr: "inherit",
  ipc: () => fromChild(),
});
const worker = new Worker(join(import.meta.dir, "wake.worker.ts"));
let fromWorker: () => void = () => {};
worker.onmessage = () => fromWorker();

let sendMs = 0;
const viaProcess = () =>
  new Promise<void>((resolve) => {
    fromChild = resolve;
    const t0 = performance.now();
    child.send(answer);
    sendMs += performance.now() - t0;
  });
const viaThread = () =>
  new Promise<void>((resolve) => {
    fromWorker = resolve;
    worker.postMessage(answer);
  });
const modes = {
  "same thread (no sleep)": undefined,
  "after a round trip to a process (Bun IPC)": viaProcess,
  "after a round trip to a Worker thread": viaThread,
} as const;
type Mode = keyof typeof modes;

/** One run of CALLS sequential calls; per call: all of it, and the VM slice alone. */
async function run(mode: Mode): Promise<{ totalUs: number; sliceUs: number }> {
  const roundTrip = modes[mode];
  restoreVm(vm);
  let sliceMs = 0;
  const t0 = performance.now();
  await new Promise<void>((resolve, reject) => {
    const vmRun: VmRun = new VmRun(
      vm,
      { code, toolPaths: ["calendar.get"], limits: { ...defaultSandboxLimits, maxToolCalls: CALLS * 2 } },
      {
        wait(calls) {
          for (const [id] of calls) {
            const slice = () => {
              const s = performance.now();
              vmRun.deliver([[id, '{"id":7}']]);
              sliceMs += performance.now() - s;
            };
            if (roundTrip) void roundTrip().then(slice);
            else queueMicrotask(slice);
          }
        },
        done: (o) => (o.ok ? resolve() : reject(new Error(o.error.message))),
      },
    );
    vmRun.start();
  });
  return { totalUs: ((performance.now() - t0) * 1000) / CALLS, sliceUs: (sliceMs * 1000) / CALLS };
}

const samples = new Map<Mode, { total: number[]; slice: number[] }>();
for (const mode of Object.keys(modes) as Mode[]) {
  samples.set(mode, { total: [], slice: [] });
  await run(mode);
}
sendMs = 0;
for (let round = 0; round < ROUNDS; round++) {
  for (const mode of Object.keys(modes) as Mode[]) {
    const r = await run(mode);
    samples.get(mode)!.total.push(r.totalUs);
    samples.get(mode)!.slice.push(r.sliceUs);
  }
}
const hotSlice = quantiles(samples.get("same thread (no sleep)")!.slice).median;
printTable(`What a sleep costs a crossing (${ROUNDS} rounds × ${CALLS} sequential calls, medians)`, [
  ...[...samples].map(([mode, s]) => {
    const slice = quantiles(s.slice).median;
    return {
      "the answer arrives": mode,
      "per call": `${quantiles(s.total).median.toFixed(1)} µs`,
      "VM slice per call": `${slice.toFixed(1)} µs`,
      "slice vs no sleep": `${(slice / hotSlice).toFixed(2)}×`,
    };
  }),
]);
printTable("One Bun IPC send to a sleeping process (wall time of `send`, waking it included)", [
  { "mean per send": `${((sendMs * 1000) / (ROUNDS * CALLS)).toFixed(1)} µs` },
]);
child.kill();
worker.terminate();
process.exit(0);

import { expect, test } from "bun:test";
import { defaultSandboxLimits } from "./types.ts";
import { prepareVm, VmRun } from "./vm-run.ts";

// A sandbox child's own threads (the JIT, WebAssembly tier-up, the collector's helpers) can burn
// more CPU than a short run while it waits for an approval. CI once failed a run this way: only
// the CPU of the thread the VM runs on is the run's.
test("CPU spent on other threads while a run waits for a tool is not the run's", async () => {
  const vm = await prepareVm(defaultSandboxLimits.memoryBytes);
  const burner = new Worker(
    URL.createObjectURL(
      new Blob(["onmessage = () => { const end = Date.now() + 300; while (Date.now() < end) {} postMessage(0); };"]),
    ),
  );
  await new Promise<void>((resolve) => {
    burner.onmessage = () => resolve();
    burner.postMessage("warm-up"); // the worker has started and can burn at once when asked
  });
  const done = new Promise<{ ok: boolean; cpuMs: number }>((resolve) => {
    const run: VmRun = new VmRun(
      vm,
      {
        code: "return await tools.ops.approve({});",
        toolPaths: ["ops.approve"],
        limits: { ...defaultSandboxLimits, cpuMs: 100 },
      },
      {
        wait(calls) {
          const [id] = calls[0]!;
          burner.onmessage = () => run.deliver([[id, '{"approved":true}']]);
          burner.postMessage("burn");
        },
        done: (outcome, cpuMs) => resolve({ ok: outcome.ok, cpuMs }),
      },
    );
    run.start();
  });
  const { ok, cpuMs } = await done;
  burner.terminate();
  expect(ok).toBe(true);
  expect(cpuMs).toBeLessThan(100);
});

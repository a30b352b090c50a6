/**
 * Code-mode sandbox overhead: the 6-call snippet (3 sequential awaits + 3 in Promise.all) in the
 * child-process pool vs. the same calls made directly in the host (baseline), unsafe node:vm
 * (reference, NOT a boundary) and QuickJS in-process (no process isolation). Plus the cost of
 * one crossing, from a 1000-call snippet.
 */
import vm from "node:vm";
import { bench, fmtMs, printTable, type BenchResult } from "./lib.ts";
import { createSandboxPool } from "../packages/core/src/sandbox/pool.ts";
import { prepareVm, VmRun } from "../packages/core/src/sandbox/runner.ts";
import { defaultSandboxLimits, type HostCallResult, type SandboxRunOptions } from "../packages/core/src/sandbox/types.ts";

const toolPaths = ["calendar.list", "calendar.get", "mail.search", "mail.get"];
const onToolCall = async (path: string, inputJson: string): Promise<HostCallResult> => {
  const input = JSON.parse(inputJson) as Record<string, unknown>;
  return { ok: true, json: JSON.stringify({ id: 7, path, title: "Standup", input }) };
};

const SIX_CALLS = `
const a = await tools.calendar.list({ day: 1 });
const b = await tools.calendar.get({ id: a.id });
const c = await tools.mail.search({ q: "invoice" });
const [d, e, f] = await Promise.all([tools.mail.get({ id: 1 }), tools.mail.get({ id: 2 }), tools.calendar.get({ id: 3 })]);
return { a: a.id, b: b.id, c: c.id, d: d.id, e: e.id, f: f.id };`;
const THOUSAND_CALLS = `let n = 0; for (let i = 0; i < 1000; i++) n += (await tools.calendar.get({ id: i })).id; return n;`;
const EMPTY = `return 1;`;

// Direct: the same six calls and JSON work, straight in the host.
async function direct(): Promise<unknown> {
  const call = async (path: string, input: unknown) => {
    const r = await onToolCall(path, JSON.stringify(input));
    return r.ok && r.json !== undefined ? (JSON.parse(r.json) as { id: number }) : undefined;
  };
  const a = await call("calendar.list", { day: 1 });
  const b = await call("calendar.get", { id: a!.id });
  const c = await call("mail.search", { q: "invoice" });
  const [d, e, f] = await Promise.all([call("mail.get", { id: 1 }), call("mail.get", { id: 2 }), call("calendar.get", { id: 3 })]);
  return JSON.stringify({ a: a!.id, b: b!.id, c: c!.id, d: d!.id, e: e!.id, f: f!.id });
}

// node:vm: unsafe reference (the snippet can reach the host through constructors).
function nodeVmRunner(code: string) {
  const tools: Record<string, Record<string, (input: unknown) => Promise<unknown>>> = {};
  for (const path of toolPaths) {
    const [ns, name] = path.split(".") as [string, string];
    (tools[ns] ??= {})[name] = async (input) => {
      const r = await onToolCall(path, JSON.stringify(input));
      return r.ok && r.json !== undefined ? JSON.parse(r.json) : undefined;
    };
  }
  const context = vm.createContext({ tools });
  const script = new vm.Script(`(async () => {${code}\n})()`);
  return async () => JSON.stringify(await script.runInContext(context));
}

// QuickJS in the bench process: a fresh instance per run, same runner the children use.
async function inProcess(code: string): Promise<unknown> {
  const prepared = await prepareVm(defaultSandboxLimits.memoryBytes);
  return new Promise((resolve, reject) => {
    const run: VmRun = new VmRun(prepared, { code, toolPaths, limits: { ...defaultSandboxLimits, maxToolCalls: 2000 } }, {
      wait(calls) {
        for (const [id, path, json] of calls) {
          void onToolCall(path, json).then((r) => run.deliver([r.ok ? [id, r.json] : [id, null, r.error]]));
        }
      },
      done(outcome) {
        if (outcome.ok) resolve(outcome.valueJson);
        else reject(new Error(outcome.error.message));
      },
    });
    run.start();
  });
}

const pool = createSandboxPool({ minIdle: 1 });
await pool.warmUp();
/** A gateway's worth of tools declared (the snippet still calls the same four). */
const manyToolPaths = Object.freeze([...toolPaths, ...Array.from({ length: 196 }, (_, i) => `svc${i % 20}.noun${i}.verb`)]);
const inPool = async (code: string, paths: readonly string[] = toolPaths) => {
  const options: SandboxRunOptions = { code, toolPaths: paths, onToolCall, limits: { maxToolCalls: 2000 } };
  const r = await pool.run(options);
  if (!r.ok) throw new Error(`${r.error.name}: ${r.error.message}`);
  return r.valueJson;
};

/** Like bench(), but each sample is taken after a short pause (runs are normally separated by model turns). */
async function benchSpaced(name: string, fn: () => Promise<unknown>, iterations: number, pauseMs: number): Promise<BenchResult> {
  const samples: number[] = [];
  for (let i = 0; i < iterations + 10; i++) {
    await Bun.sleep(pauseMs);
    const t0 = performance.now();
    await fn();
    if (i >= 10) samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
  return { name, iterations, medianMs: at(0.5), p95Ms: at(0.95), minMs: samples[0]! };
}

const nodeVmSix = nodeVmRunner(SIX_CALLS);
const iterations = 200;
const rows = [
  await bench("direct (baseline)", direct, { iterations, warmup: 50 }),
  await bench("node:vm (unsafe reference)", nodeVmSix, { iterations, warmup: 50 }),
  await bench("QuickJS in-process (fresh instance)", () => inProcess(SIX_CALLS), { iterations, warmup: 50 }),
  await bench("pool, child process (back to back)", () => inPool(SIX_CALLS), { iterations, warmup: 50 }),
  await benchSpaced("pool, child process (runs 5 ms apart)", () => inPool(SIX_CALLS), iterations, 5),
  await benchSpaced("pool, 200 tools declared (runs 5 ms apart)", () => inPool(SIX_CALLS, manyToolPaths), iterations, 5),
];
const base = rows[0]!.medianMs;
const nodeVm = rows[1]!.medianMs;
printTable(
  "Sandbox: 6-call snippet (3 sequential + 3 parallel), per run",
  rows.map((r) => ({
    mode: r.name,
    median: fmtMs(r.medianMs),
    min: fmtMs(r.minMs),
    p95: fmtMs(r.p95Ms),
    "overhead vs direct": fmtMs(r.medianMs - base),
    "× direct": (r.medianMs / base).toFixed(0),
    "× node:vm": (r.medianMs / nodeVm).toFixed(1),
  })),
);

const crossRows = [];
for (const [name, fn] of [
  ["QuickJS in-process", (code: string) => inProcess(code)],
  ["pool, child process", (code: string) => inPool(code)],
] as const) {
  const empty = await bench(`${name} empty`, () => fn(EMPTY), { iterations: 50, warmup: 10 });
  const many = await bench(`${name} 1000 calls`, () => fn(THOUSAND_CALLS), { iterations: 15, warmup: 3 });
  crossRows.push({
    mode: name,
    "empty run": fmtMs(empty.medianMs),
    "1000 sequential calls": fmtMs(many.medianMs),
    "per crossing": fmtMs((many.medianMs - empty.medianMs) / 1000),
  });
}
printTable("Sandbox: cost per tool crossing (1000 sequential awaits)", crossRows);
await pool.close();

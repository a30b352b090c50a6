/**
 * Child process for bench/typecheck.bench.ts. Prints one JSON line.
 * - `bun bench/typecheck.cold.ts <tools>`: what a fresh gateway process pays before its first check
 *   (module load, declarations, starting the checker process, first checks);
 * - `bun bench/typecheck.cold.ts stall`: this thread's event loop while pathological checks run.
 */
if (process.argv[2] === "stall") {
  console.log(JSON.stringify(await measureStalls()));
  process.exit(0);
}
const n = Number(process.argv[2] ?? 200);
/** Main-thread CPU ms: unlike wall time, not inflated when other processes compete for the cores. */
const cpu = () => {
  const u = (process as unknown as { threadCpuUsage(): { user: number; system: number } }).threadCpuUsage();
  return (u.user + u.system) / 1000;
};
const t0 = performance.now();
const { generateDeclarations, createTypechecker } = await import("../packages/core/src/codemode/index.ts");
const { makeFixtureToolTree, fixtureToolPath } = await import("../packages/testkit/src/tool-fixtures.ts");
const importMs = performance.now() - t0;

const tree = makeFixtureToolTree(n);
const t1 = performance.now();
const c1 = cpu();
const { text } = generateDeclarations(tree);
const declarationsCpuMs = cpu() - c1;
const declarationsMs = performance.now() - t1;

const checker = createTypechecker();
const tw = performance.now();
await checker.warmUp();
const warmUpMs = performance.now() - tw;
const t2 = performance.now();
const c2 = cpu();
const first = await checker.check(`const r = await tools.${fixtureToolPath(0)}({ id: "1" });\nreturn r;`, text);
const firstCheckCpuMs = cpu() - c2;
const firstCheckMs = performance.now() - t2;
const t3 = performance.now();
await checker.check(`const r = await tools.${fixtureToolPath(n - 1)}({ id: "2" });\nreturn r;`, text);
const secondCheckMs = performance.now() - t3;
await checker.close();

if (!first.ok) throw new Error(`fixture snippet failed to typecheck: ${first.text}`);
console.log(
  JSON.stringify({
    n,
    importMs,
    declarationsMs,
    declarationsCpuMs,
    warmUpMs,
    firstCheckMs,
    firstCheckCpuMs,
    secondCheckMs,
  }),
);
async function measureStalls(): Promise<Array<Record<string, string>>> {
  const { createTypechecker } = await import("../packages/core/src/codemode/typecheck.ts");
  const { createProgramChecker } = await import("../packages/core/src/codemode/typecheck-program.ts");
  Bun.gc(true);
  // Recursive conditional type over growing tuples: minutes of checker CPU and > 1 GB if let run.
  const EXPLOSIVE =
    'type T<N extends unknown[]> = N["length"] extends 999 ? N : T<[...N, N]>;\ntype X = T<[]>;\nconst x: X = null as any;\nreturn x;';
  // Smaller: finishes in about a second in process, so the old in-process design can be shown.
  const HEAVY =
    'type E<T, D extends 0[] = []> = D["length"] extends 22 ? T : E<{ a: T; b: T } | [T, T], [...D, 0]>;\nlet v: E<string> = null as any;\nconst w: E<number> = v;\nreturn w;';
  const LIMIT_MS = 3_000;
  const stallRows: Array<Record<string, string>> = [];
  stallRows.push({ case: "baseline: idle event loop, no check", ...(await watchLoop(() => Bun.sleep(LIMIT_MS))) });
  {
    const limited = createTypechecker({ timeoutMs: LIMIT_MS });
    await limited.warmUp();
    let outcome = "";
    const watched = await watchLoop(async () => {
      const r = await limited.check(EXPLOSIVE, "declare const tools: {};\n");
      outcome = r.ok ? "ok?!" : `code ${r.diagnostics[0]!.code}`;
      // include the replacement checker's start, which happens on this side too (spawn + IPC)
      await limited.warmUp();
    });
    stallRows.push({
      case: `pathological check, killed at the ${LIMIT_MS / 1000} s limit (${outcome}) + replacement started`,
      ...watched,
    });
    const heavy = await watchLoop(() => limited.check(HEAVY, "declare const tools: {};\n"));
    stallRows.push({ case: "heavy check (deep instantiation), checker process", ...heavy });
    await limited.close();
  }
  {
    const inProcess = createProgramChecker();
    inProcess.warmUp();
    const before = await watchLoop(async () => {
      await Bun.sleep(5);
      inProcess.check(HEAVY, "declare const tools: {};\n");
    });
    stallRows.push({ case: "baseline: the same heavy check in process (the design before #9)", ...before });
  }
  return stallRows;
}

function threadCpuMs(): number {
  const u = (process as unknown as { threadCpuUsage(): { user: number; system: number } }).threadCpuUsage();
  return (u.user + u.system) / 1000;
}

function fmtMs(ms: number): string {
  return ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`;
}

/**
 * Runs `work` while a 1 ms interval timer ticks on this thread; a stall is how much later than
 * 1 ms a tick came. Also the main-thread CPU spent meanwhile (not inflated by other processes).
 */
async function watchLoop(work: () => Promise<unknown>): Promise<Record<string, string>> {
  // Two measures per gap between ticks: wall time (inflated when other processes take the cores)
  // and this thread's CPU time (what this thread itself ran between two ticks: the stall it caused).
  const gaps: number[] = [];
  const cpuGaps: number[] = [];
  let last = performance.now();
  let lastCpu = threadCpuMs();
  const tick = () => {
    const now = performance.now();
    const cpuNow = threadCpuMs();
    gaps.push(now - last - 1);
    cpuGaps.push(cpuNow - lastCpu);
    last = now;
    lastCpu = cpuNow;
  };
  const timer = setInterval(tick, 1);
  const c0 = threadCpuMs();
  const t0 = performance.now();
  await work();
  tick(); // a synchronous stall right up to the end counts too
  const wall = performance.now() - t0;
  const cpu = threadCpuMs() - c0;
  clearInterval(timer);
  gaps.sort((a, b) => a - b);
  cpuGaps.sort((a, b) => a - b);
  const q = (xs: number[], p: number) => Math.max(0, xs[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? 0);
  return {
    wall: fmtMs(wall),
    ticks: String(gaps.length),
    "wall stall p99": fmtMs(q(gaps, 0.99)),
    "max wall stall": fmtMs(q(gaps, 1)),
    "max thread-CPU between ticks": fmtMs(q(cpuGaps, 1)),
    "thread CPU in all": fmtMs(cpu),
    "≤ 5 ms (thread CPU)": q(cpuGaps, 1) <= 5 ? "yes" : "NO",
    "≤ 5 ms (wall)": q(gaps, 1) <= 5 ? "yes" : "NO",
  };
}

export {};

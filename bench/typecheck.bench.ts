/**
 * Code mode front half: declarations from zod, typecheck (cold / warm, in its checker process),
 * the main thread's event loop while a pathological typecheck runs, pre-check + transpile.
 * `bun bench/typecheck.bench.ts`
 */
import ts from "typescript";
import {
  createTypechecker,
  GATEWAY_PRACTICE_CHECKS,
  generateDeclarations,
} from "../packages/core/src/codemode/index.ts";
import { precheckSnippet } from "../packages/core/src/codemode/precheck.ts";
import { transpileSnippet } from "../packages/core/src/codemode/transpile.ts";
import { fixtureToolPath, makeFixtureToolTree } from "../packages/testkit/src/tool-fixtures.ts";
import { bench, fmtMs, printTable } from "./lib.ts";

const SIZES = [10, 200, 1000];
const root = new URL("..", import.meta.url).pathname;

// ---- declarations -------------------------------------------------------------------------
const declRows: Array<Record<string, string | number>> = [];
const fresh = coldInProcess();
for (const n of SIZES) {
  const iterations = n >= 1000 ? 10 : 30;
  const warmup = 3;
  // never-seen definitions on every iteration: the per-definition cache is cold, the JIT is warm
  const trees = Array.from({ length: iterations + warmup }, () => makeFixtureToolTree(n));
  let i = 0;
  const cold = await bench(`declarations ${n} cold`, () => generateDeclarations(trees[i++]!), { iterations, warmup });
  const cpuTrees = Array.from({ length: iterations }, () => makeFixtureToolTree(n));
  let j = 0;
  const coldCpu = cpuMean(() => generateDeclarations(cpuTrees[j++]!), iterations);
  const same = trees[0]!;
  const cached = await bench(`declarations ${n} cached`, () => generateDeclarations(same), { iterations: 200 });
  // a new tree object around already-seen definitions (e.g. a reload that changed nothing)
  const rebuilt = () => Object.fromEntries(Object.entries(same));
  const perDef = await bench(`declarations ${n} rebuilt tree`, () => generateDeclarations(rebuilt()), {
    iterations: 100,
  });
  const { text } = generateDeclarations(same);
  declRows.push({
    tools: n,
    "fresh process, 1st call": fmtMs(fresh.get(n)!.declarationsMs),
    "fresh process, CPU": fmtMs(fresh.get(n)!.declarationsCpuMs),
    "cache-cold median": fmtMs(cold.medianMs),
    "cache-cold p95": fmtMs(cold.p95Ms),
    "cache-cold CPU mean": fmtMs(coldCpu),
    "same tree (cached)": fmtMs(cached.medianMs),
    "new tree, same defs": fmtMs(perDef.medianMs),
    "cold / cached": `${(cold.medianMs / cached.medianMs).toFixed(0)}×`,
    "text size": `${(text.length / 1024).toFixed(0)} KiB`,
  });
}
printTable("Declaration generation (zod-to-ts 2.1, io: input)", declRows);

// ---- typecheck cold -----------------------------------------------------------------------
const coldRows: Array<Record<string, string | number>> = [];
for (const n of SIZES) {
  const runs = [0, 1, 2].map(() => coldChild(n)).sort((a, b) => a.firstCheckMs - b.firstCheckMs);
  const mid = runs[1]!;
  coldRows.push({
    tools: n,
    "import core (no TypeScript on this thread)": fmtMs(mid.importMs),
    "warmUp: checker process spawned → ready": fmtMs(mid.warmUpMs),
    "1st check (new declarations)": fmtMs(mid.firstCheckMs),
    "1st check, main-thread CPU": fmtMs(mid.firstCheckCpuMs),
    "2nd check": fmtMs(mid.secondCheckMs),
    "range of 1st check (3 procs)": `${fmtMs(runs[0]!.firstCheckMs)} – ${fmtMs(runs[2]!.firstCheckMs)}`,
  });
}
printTable("Typecheck cold (fresh `bun` process each, checker process warmed by warmUp(), median of 3)", coldRows);

// ---- typecheck warm -----------------------------------------------------------------------
// Set up as the gateway's: its JIT warm-up runs in idle time once it is warm (typecheck-child.ts).
const checker = createTypechecker({ practiceChecks: GATEWAY_PRACTICE_CHECKS });
await checker.warmUp();
await Bun.sleep(3_000);
{
  // let the checker's JIT settle so the first size measured is not penalised (the gateway warms up at boot too)
  const { text } = generateDeclarations(makeFixtureToolTree(50));
  for (let i = 0; i < 40; i++)
    await checker.check(
      `const r = await tools.${fixtureToolPath(i % 50)}({ id: "${i}" });\nreturn [r].map((x) => x);`,
      text,
    );
}
const warmRows: Array<Record<string, string | number>> = [];
for (const n of SIZES) {
  const { text } = generateDeclarations(makeFixtureToolTree(n));
  const a = fixtureToolPath(0);
  const b = fixtureToolPath(Math.min(n, 200) - 1);
  let k = 0;
  const good = () =>
    `const first = await tools.${a}({ id: "x${k++}", status: "open" });\n` +
    `const rows = await Promise.all([1, 2, 3].map((i) => tools.${b}({ id: String(i) })));\n` +
    `console.log(first, rows.length);\nreturn { first, rows };`;
  const bad = () => `const r = await tools.${a}({ id: ${k++}, status: "opne" });\nreturn r.missing;`;
  const firstT0 = performance.now();
  const r = await checker.check(good(), text);
  const firstWithNewDecls = performance.now() - firstT0;
  if (!r.ok) throw new Error(`bench snippet should typecheck:\n${r.text}`);
  const ok = await bench(`check ok ${n}`, () => checker.check(good(), text), { iterations: 40, warmup: 5 });
  const err = await bench(`check err ${n}`, () => checker.check(bad(), text), { iterations: 40, warmup: 5 });
  const c0 = threadCpuMs();
  const s0 = checker.stats();
  for (let i = 0; i < 40; i++) await checker.check(good(), text);
  const okCpu = (threadCpuMs() - c0) / 40;
  const s1 = checker.stats();
  const checkerCpu = (s1.checkerCpuMs - s0.checkerCpuMs) / (s1.checked - s0.checked);
  warmRows.push({
    tools: n,
    "1st check after tree change": fmtMs(firstWithNewDecls),
    "ok snippet median": fmtMs(ok.medianMs),
    "ok p95": fmtMs(ok.p95Ms),
    "ok mean, checker CPU": fmtMs(checkerCpu),
    "ok mean, gateway-thread CPU": fmtMs(okCpu),
    "error snippet median": fmtMs(err.medianMs),
    "error p95": fmtMs(err.p95Ms),
  });
}
printTable(
  "Typecheck warm (checker process, IPC round trip included; new snippet each time; target ≤ 20 ms @ 200 tools)",
  warmRows,
);

// ---- event loop during a pathological typecheck ---------------------------------------------
// In a fresh process (bench/typecheck.cold.ts stall): no garbage from the sections above, whose
// collection would show up as stalls that have nothing to do with the typecheck.
{
  const proc = Bun.spawnSync(["bun", "bench/typecheck.cold.ts", "stall"], {
    cwd: root,
    stdout: "pipe",
    stderr: "inherit",
  });
  if (proc.exitCode !== 0) throw new Error(`bench/typecheck.cold.ts stall exited ${proc.exitCode}`);
  const rows = JSON.parse(proc.stdout.toString().trim().split("\n").pop()!) as Array<Record<string, string>>;
  printTable(
    "Gateway event loop while a typecheck runs (fresh process; 1 ms interval timer; target: max stall ≤ 5 ms)",
    rows,
  );
}

// ---- transpile ----------------------------------------------------------------------------
const snippets = [
  'const w = await tools.weather({ location: "Berlin" });\nreturn w;',
  [
    "interface Row { id: string; status: 'open' | 'closed' }",
    "const rows = (await tools.github.issues.list({ id: 'repo' })) as Row[];",
    "const open = rows.filter((r): r is Row => r.status === 'open');",
    "for (const r of open) {",
    "  try { await tools.github.issues.update({ id: r.id, status: 'closed' }); }",
    "  catch (e) { if (e instanceof ToolDeniedError) console.warn(`denied ${r.id}: ${e.message}`); else throw e; }",
    "}",
    "enum Mode { Fast, Slow }",
    "return { closed: open.length, mode: Mode.Fast } satisfies Record<string, unknown>;",
  ].join("\n"),
];
const transpileRows: Array<Record<string, string | number>> = [];
for (const [i, code] of snippets.entries()) {
  const wrapped = `async function __run() {\n${code}\n}`;
  const bunT = await bench(`bun transpile ${i}`, () => transpileSnippet(code), { iterations: 500, warmup: 50 });
  const tsT = await bench(
    `ts.transpileModule ${i}`,
    () =>
      ts.transpileModule(wrapped, {
        compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
      }),
    { iterations: 200, warmup: 20 },
  );
  const pre = await bench(`precheck ${i}`, () => precheckSnippet(code), { iterations: 500, warmup: 50 });
  transpileRows.push({
    snippet: `${code.split("\n").length} lines`,
    "precheckSnippet alone": fmtMs(pre.medianMs),
    "transpileSnippet (Bun.Transpiler)": fmtMs(bunT.medianMs),
    "baseline ts.transpileModule": fmtMs(tsT.medianMs),
    "speed-up": `${(tsT.medianMs / bunT.medianMs).toFixed(1)}×`,
  });
}
printTable("Pre-check + transpile one snippet (transpileSnippet includes the pre-check)", transpileRows);
await checker.close();

function threadCpuMs(): number {
  const u = (process as unknown as { threadCpuUsage(): { user: number; system: number } }).threadCpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * Mean main-thread CPU time per call: robust when other processes compete for the cores. A mean over
 * many calls, because the thread CPU clock only advances at scheduler ticks (~4 ms here).
 */
function cpuMean(fn: () => unknown, iterations: number): number {
  const c0 = threadCpuMs();
  for (let i = 0; i < iterations; i++) fn();
  return (threadCpuMs() - c0) / iterations;
}

interface ColdRun {
  importMs: number;
  warmUpMs: number;
  declarationsMs: number;
  declarationsCpuMs: number;
  firstCheckMs: number;
  firstCheckCpuMs: number;
  secondCheckMs: number;
}

function coldChild(n: number): ColdRun {
  const proc = Bun.spawnSync(["bun", "bench/typecheck.cold.ts", String(n)], {
    cwd: root,
    stdout: "pipe",
    stderr: "inherit",
  });
  if (proc.exitCode !== 0) throw new Error(`bench/typecheck.cold.ts ${n} exited ${proc.exitCode}`);
  return JSON.parse(proc.stdout.toString().trim().split("\n").pop()!);
}

/** First declarations call per size, each in a fresh process (cold JIT, cold caches). */
function coldInProcess(): Map<number, ColdRun> {
  const out = new Map<number, ColdRun>();
  for (const n of SIZES) {
    const runs = [0, 1, 2].map(() => coldChild(n)).sort((a, b) => a.declarationsMs - b.declarationsMs);
    out.set(n, runs[1]!);
  }
  return out;
}

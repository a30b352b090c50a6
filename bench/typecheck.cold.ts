/**
 * Child process for bench/typecheck.bench.ts: measures what a fresh gateway process pays before its
 * first check (module load, declarations, starting the checker process, first checks). Prints one
 * JSON line. Usage: bun bench/typecheck.cold.ts <tools>
 */
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
console.log(JSON.stringify({ n, importMs, declarationsMs, declarationsCpuMs, warmUpMs, firstCheckMs, firstCheckCpuMs, secondCheckMs }));
export {};

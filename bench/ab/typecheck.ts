/**
 * A/B of the warm typecheck (bench/typecheck.bench.ts, "Typecheck warm"): another checkout
 * (argv[2]) against this one, each with its own checker process, in one process, checks
 * interleaved (the order alternates each round). Same snippets as the bench: a right one (a call,
 * three calls in Promise.all over map, console.log) and a wrong one (wrong type, bad enum value,
 * unknown property), new text each time. Wall time includes the IPC round trip; "checker CPU" is
 * what the checker process reports for the check itself.
 * Not part of `bun run bench`. Usage: bun bench/ab/typecheck.ts <other checkout> [rounds = 12] [gap ms = 20]
 */
import { join } from "node:path";
import { generateDeclarations } from "../../packages/core/src/codemode/index.ts";
import { fixtureToolPath, makeFixtureToolTree } from "../../packages/testkit/src/tool-fixtures.ts";

const other = process.argv[2];
if (!other) throw new Error("usage: bun bench/ab/typecheck.ts <other checkout> [rounds] [gap ms]");
const trees: Record<string, string> = { base: other, new: join(import.meta.dir, "..", "..") };
const ROUNDS = Number(process.argv[3] ?? 12);
/** Pause before each check, as between turns (a checker that waited is slower than one in a tight loop). */
const GAP_MS = Number(process.argv[4] ?? 20);
const SIZES = [10, 200, 1000];

interface Checker {
  check(code: string, declarations: string): Promise<{ ok: boolean; text?: string }>;
  warmUp(): Promise<void>;
  close(): Promise<void>;
  stats(): { checked: number; checkerCpuMs: number };
}
const checkers: Record<string, Checker> = {};
for (const [name, root] of Object.entries(trees)) {
  const { createTypechecker } = await import(`${root}/packages/core/src/codemode/typecheck.ts`);
  // Set up as the gateway's own (this branch: a JIT warm-up in idle time; the base ignores the option).
  checkers[name] = createTypechecker({ practiceChecks: 500 });
  await checkers[name]!.warmUp();
}
// This branch's checker warms its JIT up in idle time once it is warm (typecheck-child.ts): let it.
await Bun.sleep(3_000);
const decls = new Map(SIZES.map((n) => [n, generateDeclarations(makeFixtureToolTree(n)).text]));
{
  // As the bench does: let each checker's JIT settle, so the first size measured is not penalised.
  const { text } = generateDeclarations(makeFixtureToolTree(50));
  for (let i = 0; i < 40; i++)
    for (const c of Object.values(checkers))
      await c.check(
        `const r = await tools.${fixtureToolPath(i % 50)}({ id: "${i}" });\nreturn [r].map((x) => x);`,
        text,
      );
}
let k = 0;
const good = (n: number) =>
  `const first = await tools.${fixtureToolPath(0)}({ id: "x${k++}", status: "open" });\n` +
  `const rows = await Promise.all([1, 2, 3].map((i) => tools.${fixtureToolPath(Math.min(n, 200) - 1)}({ id: String(i) })));\n` +
  `console.log(first, rows.length);\nreturn { first, rows };`;
const bad = () => `const r = await tools.${fixtureToolPath(0)}({ id: ${k++}, status: "opne" });\nreturn r.missing;`;

const res: Record<string, number[]> = {};
const push = (key: string, v: number) => (res[key] ??= []).push(v);
async function timed(name: string, code: string, text: string, want: boolean): Promise<[number, number]> {
  const c = checkers[name]!;
  const s0 = c.stats();
  const t0 = performance.now();
  const r = await c.check(code, text);
  const wall = performance.now() - t0;
  if (r.ok !== want) throw new Error(`${name}: expected ok=${want}:\n${r.text}`);
  const s1 = c.stats();
  return [wall, s1.checkerCpuMs - s0.checkerCpuMs];
}
for (const n of SIZES) {
  const text = decls.get(n)!;
  for (let round = 0; round < ROUNDS + 1; round++) {
    for (const name of round % 2 ? ["base", "new"] : ["new", "base"]) {
      for (let i = 0; i < 5; i++) {
        await Bun.sleep(GAP_MS);
        const [wall, cpu] = await timed(name, good(n), text, true);
        if (round === 0) continue; // the first round checks against new declarations
        push(`${n} ok ${name} wall`, wall);
        push(`${n} ok ${name} checker CPU`, cpu);
      }
      await Bun.sleep(GAP_MS);
      const [wall, cpu] = await timed(name, bad(), text, false);
      if (round === 0) continue;
      push(`${n} error ${name} wall`, wall);
      push(`${n} error ${name} checker CPU`, cpu);
    }
  }
}
const q = (a: number[], p: number) => [...a].sort((x, y) => x - y)[Math.floor(a.length * p)]!;
const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
const load = (await Bun.file("/proc/loadavg").text()).trim();
console.log(`${ROUNDS} rounds, ${GAP_MS} ms before each check; load average at end: ${load}`);
console.log(
  "| tools | snippet | base wall median | new wall median | new/base | base checker CPU mean | new checker CPU mean | new/base |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
for (const n of SIZES)
  for (const what of ["ok", "error"]) {
    const w = (s: string) => q(res[`${n} ${what} ${s} wall`]!, 0.5);
    const c = (s: string) => mean(res[`${n} ${what} ${s} checker CPU`]!);
    console.log(
      `| ${n} | ${what} | ${w("base").toFixed(2)} ms | ${w("new").toFixed(2)} ms | ${(w("new") / w("base")).toFixed(2)}× | ${c("base").toFixed(2)} ms | ${c("new").toFixed(2)} ms | ${(c("new") / c("base")).toFixed(2)}× |`,
    );
  }
for (const c of Object.values(checkers)) await c.close();

// ---- the same in process: the checker's own thread CPU (robust on a loaded machine) ----------
// Mean over 10 checks per sample, because the thread CPU clock only advances at scheduler ticks.
const cpu = () => {
  const u = (process as unknown as { threadCpuUsage(): { user: number; system: number } }).threadCpuUsage();
  return (u.user + u.system) / 1000;
};
interface InProcess {
  check(code: string, declarations: string, key?: string): { ok: boolean };
  warmUp(): void;
  prepare?(): boolean;
}
const inProcess: Record<string, InProcess> = {};
for (const [name, root] of Object.entries(trees)) {
  const { createProgramChecker } = await import(`${root}/packages/core/src/codemode/typecheck-program.ts`);
  inProcess[name] = createProgramChecker();
  inProcess[name]!.warmUp();
}
const text200 = decls.get(200)!;
const gatewaySnippet = () => `return await tools.${fixtureToolPath(0)}({ id: "x${k++}" });`;
const cpuRes: Record<string, number[]> = {};
for (let round = 0; round < ROUNDS * 2 + 3; round++)
  for (const name of round % 2 ? ["base", "new"] : ["new", "base"]) {
    const c = inProcess[name]!;
    const sample = (what: string, code: () => string, want: boolean, times: number) => {
      const t = cpu();
      for (let i = 0; i < times; i++) if (c.check(code(), text200, "k").ok !== want) throw new Error(`${name} ${what}`);
      if (round >= 3) (cpuRes[`${what} ${name}`] ??= []).push((cpu() - t) / times);
    };
    sample("the gateway bench's snippet (one call)", gatewaySnippet, true, 10);
    sample("the typecheck bench's ok snippet", () => good(200), true, 10);
    sample("the typecheck bench's error snippet", bad, false, 1);
    // What the checker child does once it has replied (this branch: build and warm a new checker).
    const t = cpu();
    c.prepare?.();
    if (round >= 3) (cpuRes[`idle work after the error ${name}`] ??= []).push(cpu() - t);
    sample("first ok check after the error", () => good(200), true, 1);
  }
console.log(`\nIn process, 200 tools, checker thread CPU per check (mean of ${ROUNDS * 2} interleaved rounds)`);
console.log("| check | base | new | new/base |");
console.log("| --- | --- | --- | --- |");
for (const what of [
  "the gateway bench's snippet (one call)",
  "the typecheck bench's ok snippet",
  "the typecheck bench's error snippet",
  "idle work after the error",
  "first ok check after the error",
]) {
  const b = mean(cpuRes[`${what} base`]!);
  const n = mean(cpuRes[`${what} new`]!);
  console.log(`| ${what} | ${b.toFixed(2)} ms | ${n.toFixed(2)} ms | ${b > 0.05 ? `${(n / b).toFixed(2)}×` : ""} |`);
}

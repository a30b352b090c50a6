/**
 * A/B of a sandbox pool with one fresh child: another checkout (argv[2]) against this one. Each
 * side starts a pool (one child), waits (argv[3], default 2500 ms: past the children's practice
 * runs, sandbox/practice.ts), then runs an empty snippet and the 6-call snippet 50 ms apart, the
 * two sides interleaved, 30 rounds. Prints the first five runs and the median. Not part of
 * `bun run bench`. Usage: bun bench/ab/fresh-child.ts <other checkout> [wait ms = 2500]
 */
import { join } from "node:path";

const other = process.argv[2];
if (!other) throw new Error("usage: bun bench/ab/fresh-child.ts <other checkout> [wait ms]");
const trees: Record<string, string> = { base: other, new: join(import.meta.dir, "..", "..") };
const SIX = `const a = await tools.calendar.list({ day: "mon" }); const b = await tools.calendar.get({ id: 1 }); const c = await tools.mail.search({ q: "x" });
const [d, e, f] = await Promise.all([tools.mail.get({ id: 1 }), tools.mail.get({ id: 2 }), tools.calendar.get({ id: 3 })]); return [a, b, c, d, e, f].length;`;
const toolPaths = ["calendar.list", "calendar.get", "mail.search", "mail.get"];
const host = async (_path: string, json: string) => ({ ok: true as const, json });

// Each checkout has its own pool type.
const pools: Record<string, any> = {};
for (const [name, root] of Object.entries(trees)) {
  const { createSandboxPool } = await import(`${root}/packages/core/src/sandbox/pool.ts`);
  pools[name] = createSandboxPool({ minIdle: 1, maxChildren: 1 });
  await pools[name].warmUp();
}
await Bun.sleep(Number(process.argv[3] ?? 2500));

const res: Record<string, number[]> = {};
const timed = async (key: string, code: string, pool: (typeof pools)[string]) => {
  await Bun.sleep(50);
  const t = performance.now();
  const r = await pool.run({ code, toolPaths, onToolCall: host });
  if (!r.ok) throw new Error(`${key}: ${JSON.stringify(r.error)}`);
  (res[key] ??= []).push(performance.now() - t);
};
for (let round = 0; round < 30; round++)
  for (const name of Object.keys(pools)) {
    await timed(`${name} empty`, "return 1;", pools[name]);
    await timed(`${name} six`, SIX, pools[name]);
  }
const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;
for (const key of Object.keys(res).sort()) {
  const runs = res[key]!;
  const first = runs
    .slice(0, 5)
    .map((v) => (v * 1000).toFixed(0))
    .join(" ");
  console.log(key.padEnd(12), "first five", first, "µs; median", (median(runs) * 1000).toFixed(0), "µs");
}
for (const pool of Object.values(pools)) await pool.close();

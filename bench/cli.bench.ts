/**
 * CLI start-up (issue 13 targets): `openassistant --help` ≤ 60 ms, `plugins list` on the repo
 * ≤ 150 ms, each a fresh `bun` process. Baseline in the same run: `bun -e 0` (Bun's own start-up).
 * Samples are interleaved so load on the machine hits every command alike. Also prints which heavy
 * packages each command imports (TypeScript, discord.js, Effect must not be among them).
 */
import { join } from "node:path";
import { fmtMs, printTable } from "./lib.ts";

const ROOT = join(import.meta.dir, "..");
const MAIN = join(ROOT, "apps/gateway/src/cli/main.ts");
const SAMPLES = Number(process.env.CLI_BENCH_SAMPLES ?? 15);
const VALIDATORS = join(ROOT, ".openassistant/data/cache/config-validators");

const commands: Array<{ name: string; argv: string[]; target?: number }> = [
  { name: "bun -e 0 (baseline)", argv: ["bun", "-e", "0"] },
  { name: "openassistant --version", argv: ["bun", MAIN, "--version"] },
  { name: "openassistant --help", argv: ["bun", MAIN, "--help"], target: 60 },
  {
    name: "openassistant plugins list (this repo, plugin config validators cached)",
    argv: ["bun", MAIN, "plugins", "list"],
    target: 150,
  },
  {
    // List mode writes nothing: until a gateway start (or any load that may write) has compiled the
    // calendar plugin's configSchema once, `plugins list` imports Ajv and compiles it (config-validator.ts).
    name: "openassistant plugins list (this repo, nothing cached: Ajv imported)",
    argv: ["sh", "-c", `rm -rf "${VALIDATORS}" && exec bun "${MAIN}" plugins list`],
  },
];
// What a gateway start leaves behind: the compiled validators of the repo's plugins (a load that may write).
const warmCache = () =>
  Bun.spawnSync([
    "bun",
    "-e",
    `await (await import(${JSON.stringify(join(ROOT, "packages/core/src/plugins/index.ts"))})).loadTools({ cwd: ${JSON.stringify(ROOT)}, autoInstall: false, log: () => {} })`,
  ]);

async function sample(argv: string[]): Promise<{ wall: number; cpu: number }> {
  const t0 = performance.now();
  const proc = Bun.spawn(argv, {
    cwd: ROOT,
    stdout: "ignore",
    stderr: "ignore",
    env: { ...process.env, NO_COLOR: "1" },
  });
  await proc.exited;
  const wall = performance.now() - t0;
  const usage = proc.resourceUsage();
  const cpu = usage ? (Number(usage.cpuTime.user) + Number(usage.cpuTime.system)) / 1000 : Number.NaN;
  return { wall, cpu };
}

const walls = commands.map(() => [] as number[]);
const cpus = commands.map(() => [] as number[]);
for (const c of commands) await sample(c.argv); // warm the file cache and Bun's transpiler cache
for (let i = 0; i < SAMPLES; i++)
  for (const [j, c] of commands.entries()) {
    if (c.name.includes("validators cached")) warmCache();
    const s = await sample(c.argv);
    walls[j]!.push(s.wall);
    cpus[j]!.push(s.cpu);
  }
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const min = (xs: number[]) => Math.min(...xs);
printTable(
  `CLI start-up (fresh process, ${SAMPLES} interleaved samples each)`,
  commands.map((c, j) => ({
    command: c.name,
    "wall median": fmtMs(median(walls[j]!)),
    "wall min": fmtMs(min(walls[j]!)),
    "CPU (user+sys) median": fmtMs(median(cpus[j]!)),
    target: c.target ? `≤ ${c.target} ms` : "",
  })),
);

// Which heavy packages a command pulls in: import the CLI in-process and list the modules loaded.
const probe = (argv: string[]) => `
const { main } = await import(${JSON.stringify(MAIN)});
const { runCommand } = await import(${JSON.stringify(Bun.resolveSync("citty", join(ROOT, "apps/gateway")))});
const log = console.log; console.log = () => {};
${argv.length ? `await runCommand(main, { rawArgs: ${JSON.stringify(argv)} });` : ""}
console.log = log;
const heavy = Object.keys(require.cache).map((k) => /node_modules\\/(?:\\.bun\\/[^/]+\\/node_modules\\/)?((?:@[^/]+\\/)?[^/]+)/.exec(k)?.[1]).filter((n) => n === "typescript" || n === "discord.js" || n === "effect" || n === "@anthropic-ai/sdk");
console.log(JSON.stringify({ modules: Object.keys(require.cache).length, heavy: [...new Set(heavy)] }));
`;
const rows: Array<Record<string, string>> = [];
for (const [name, argv] of [
  ["--help (main.ts only)", []],
  ["plugins list", ["plugins", "list"]],
] as const) {
  const proc = Bun.spawn(["bun", "-e", probe([...argv])], { cwd: ROOT, stdout: "pipe", stderr: "ignore" });
  const out = (await new Response(proc.stdout).text()).trim().split("\n").at(-1) ?? "{}";
  const r = JSON.parse(out) as { modules?: number; heavy?: string[] };
  rows.push({
    command: name,
    "modules loaded": String(r.modules ?? "?"),
    "typescript / discord.js / effect / anthropic": r.heavy?.length ? r.heavy.join(", ") : "none",
  });
}
printTable("What the CLI imports", rows);

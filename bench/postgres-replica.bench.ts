/**
 * What one gateway replica costs on PostgreSQL, against the SQLite gateway in the same run: two
 * gateway processes as `openassistant start` builds them (bench/postgres-replica.child.ts: the
 * gateway, its sandbox pool and typechecker processes), one on the SQLite file and one with
 * `storage.url` on a throwaway local PostgreSQL (testkit; fsync and synchronous_commit on), each
 * with its own instant fake Anthropic here. Measured: resident memory (the gateway process, and
 * with its child processes) idle and at its peak under 20 conversations at once; the gateway's
 * PostgreSQL connections (pg_stat_activity) idle, under turns and after the pool's 30 s idle
 * timeout; turns/s of bursts of 20 conversations (one tool call each), the backends alternating;
 * the statements (each one round trip) a PostgreSQL turn sends (pg_stat_statements).
 * Run: bun bench/postgres-replica.bench.ts [rounds = 6] [--no-idle-wait] [--statements]
 */
import { readdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { SQL } from "bun";
import {
  type RecordedRequest,
  startFakeAnthropic,
  textTurn,
  toolUseTurn,
} from "../packages/testkit/src/anthropic/fake-server.ts";
import { startPostgres } from "../packages/testkit/src/postgres.ts";
import { makeTempDir } from "../packages/testkit/src/temp.ts";
import { printTable } from "./lib.ts";

const args = process.argv.slice(2);
const ROUNDS = Number(args.find((a) => /^\d+$/.test(a)) ?? 6);
const AT_ONCE = 20;
const SNIPPET = 'return await tools.notes.add({ text: "x" });';
const CHILD = new URL("./postgres-replica.child.ts", import.meta.url).pathname;

/** Resident memory (kB) of `pid` alone and with every descendant (Linux /proc). */
function rssKb(pid: number): { self: number; tree: number } {
  const kids = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      kids.set(ppid, [...(kids.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const of = (p: number) => {
    try {
      return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      return 0;
    }
  };
  let tree = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    tree += of(p);
    stack.push(...(kids.get(p) ?? []));
  }
  return { self: of(pid), tree };
}

const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const server = await startPostgres({
  settings: { fsync: "on", synchronous_commit: "on", shared_preload_libraries: "pg_stat_statements" },
});
const admin = new SQL(server.url, { max: 1 });
await admin`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`;
const url = await server.freshDatabase();
const database = new URL(url).pathname.slice(1);
const connections = async () =>
  (await admin`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = ${database}`)[0].n as number;
type Statement = { calls: number; query: string };
const statements = async (): Promise<Statement[]> =>
  (
    await admin`SELECT calls::int AS calls, regexp_replace(query, '\\s+', ' ', 'g') AS query FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = ${database})`
  ).map((r: Statement) => r);

type Reply = {
  ready?: boolean;
  ms?: number;
  cpuMs?: number;
  failed?: number;
  errors?: string[];
  phases?: Record<string, number>;
  stopped?: boolean;
};
async function replica(name: string, storage: string) {
  const api = await startFakeAnthropic();
  let calls = 0;
  // Requests of concurrent turns arrive in any order: a conversation's first request gets the tool
  // call, the one carrying its result the answer.
  const step = (req: RecordedRequest) => {
    const last = (req.body.messages as Array<{ content: unknown }>).at(-1)!;
    const result = Array.isArray(last.content) && last.content.some((b: { type: string }) => b.type === "tool_result");
    return result
      ? textTurn("Added.")
      : toolUseTurn({ id: `toolu_${++calls}`, name: "execute", input: { code: SNIPPET } });
  };
  let next: ((r: Reply) => void) | undefined;
  const child = Bun.spawn(["bun", CHILD, makeTempDir(`oa-bench-replica-${name}-`), api.url, storage], {
    stdout: "inherit",
    stderr: "inherit",
    ipc: (message: Reply) => next?.(message),
  });
  const reply = () => new Promise<Reply>((ok) => (next = ok));
  await reply(); // ready
  return {
    name,
    pid: child.pid,
    async burst(): Promise<{ turnsPerS: number; cpuMsPerTurn: number; phases: Record<string, number> }> {
      api.script(Array.from({ length: 2 * AT_ONCE }, () => step));
      const answer = reply();
      child.send({ burst: AT_ONCE });
      const r = await answer;
      if (r.failed)
        throw new Error(`${name}: ${r.failed} turns of the burst did not answer ${r.errors?.join("; ") ?? ""}`);
      return { turnsPerS: AT_ONCE / (r.ms! / 1000), cpuMsPerTurn: r.cpuMs! / AT_ONCE, phases: r.phases ?? {} };
    },
    async stop() {
      const answer = reply();
      child.send({ stop: true });
      await answer;
      await child.exited;
      await api.close();
    },
  };
}

/** Runs `work`, sampling `sample()` every 100 ms meanwhile; the samples' maximum. */
async function peakDuring<T>(work: () => Promise<T>, sample: () => number | Promise<number>) {
  let peak = await sample();
  let running = true;
  const sampler = (async () => {
    while (running) {
      peak = Math.max(peak, await sample());
      await Bun.sleep(100);
    }
  })();
  const result = await work();
  running = false;
  await sampler;
  return { result, peak: Math.max(peak, await sample()) };
}

try {
  const sqlite = await replica("sqlite", "sqlite");
  const postgres = await replica("postgres", url);
  const sides = [sqlite, postgres];
  await Bun.sleep(2000); // settled after the warm-up
  const idle = new Map(sides.map((s) => [s.name, rssKb(s.pid)]));
  const connectionsIdle = await connections();
  for (const s of sides) await s.burst(); // first turns: lazy loads
  const rates = new Map<string, number[]>(sides.map((s) => [s.name, []]));
  const cpu = new Map<string, number[]>(sides.map((s) => [s.name, []]));
  const phases = new Map<string, Map<string, number[]>>(sides.map((s) => [s.name, new Map()]));
  const peakRss = new Map<string, number>(sides.map((s) => [s.name, 0]));
  let connectionsPeak = 0;
  let pgStatements = 0;
  let pgTurns = 0;
  const perStatement = new Map<string, number>();
  for (let r = 0; r < ROUNDS; r++)
    for (const s of r % 2 ? [...sides].reverse() : sides) {
      const before: Statement[] = s === postgres ? await statements() : [];
      const { result, peak } = await peakDuring(
        () => s.burst(),
        () => rssKb(s.pid).tree,
      );
      peakRss.set(s.name, Math.max(peakRss.get(s.name)!, peak));
      rates.get(s.name)!.push(result.turnsPerS);
      cpu.get(s.name)!.push(result.cpuMsPerTurn);
      for (const [phase, ms] of Object.entries(result.phases))
        phases.get(s.name)!.set(phase, [...(phases.get(s.name)!.get(phase) ?? []), ms]);
      if (s === postgres) {
        const was = new Map(before.map((b) => [b.query, b.calls]));
        for (const a of await statements()) {
          const n = a.calls - (was.get(a.query) ?? 0);
          pgStatements += n;
          perStatement.set(a.query, (perStatement.get(a.query) ?? 0) + n);
        }
        pgTurns += AT_ONCE;
      }
    }
  // The connections while turns run: one more burst on PostgreSQL, sampled.
  connectionsPeak = (await peakDuring(() => postgres.burst(), connections)).peak;
  let connectionsLater: number | string = "not measured (--no-idle-wait)";
  if (!args.includes("--no-idle-wait")) {
    await Bun.sleep(35_000); // the pool closes connections idle for 30 s (connectPostgres)
    connectionsLater = await connections();
  }
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
  printTable(
    `What one gateway replica costs (the gateway process; with its sandbox and typechecker processes), load ${load}`,
    sides.map((s) => ({
      backend: s.name,
      "RSS idle": mb(idle.get(s.name)!.self),
      "RSS idle with children": mb(idle.get(s.name)!.tree),
      [`RSS peak with children, ${AT_ONCE} turns at once`]: mb(peakRss.get(s.name)!),
    })),
  );
  printTable("PostgreSQL connections of the PostgreSQL gateway (pg_stat_activity)", [
    {
      "idle after start": connectionsIdle,
      [`peak, ${AT_ONCE} turns at once`]: connectionsPeak,
      "after 35 s idle": connectionsLater,
    },
  ]);
  printTable(
    `Turns/s, ${AT_ONCE} conversations at once (one tool call each), ${ROUNDS} bursts per backend alternating, load ${load}`,
    sides.map((s) => ({
      backend: s.name,
      "median turns/s": median(rates.get(s.name)!).toFixed(1),
      "min–max": `${Math.min(...rates.get(s.name)!).toFixed(1)}–${Math.max(...rates.get(s.name)!).toFixed(1)}`,
      "gateway CPU per turn": `${median(cpu.get(s.name)!).toFixed(1)} ms`,
    })),
  );
  printTable(
    `Where a turn's time goes, ${AT_ONCE} at once (each phase's median over a burst's turns; the median over the bursts)`,
    [...phases.get("sqlite")!.keys()].map((phase) => ({
      phase,
      sqlite: `${median(phases.get("sqlite")!.get(phase)!).toFixed(0)} ms`,
      postgres: `${median(phases.get("postgres")!.get(phase) ?? [Number.NaN]).toFixed(0)} ms`,
    })),
  );
  const ratios = rates.get("postgres")!.map((p, i) => p / rates.get("sqlite")![i]!);
  console.log(
    `postgres / sqlite turns/s: median of the rounds' ratios ${median(ratios).toFixed(2)} (${ratios.map((x) => x.toFixed(2)).join(", ")})`,
  );
  console.log(
    `statements per PostgreSQL turn (a receipt commit sends three in one message): ${(pgStatements / pgTurns).toFixed(1)}`,
  );
  if (args.includes("--statements"))
    printTable(
      "Statements per PostgreSQL turn",
      [...perStatement]
        .filter(([, n]) => n > 0)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 20)
        .map(([q, n]) => ({
          "per turn": (n / pgTurns).toFixed(2),
          statement: `\`${q.slice(0, 90).replaceAll("|", "/")}\``,
        })),
    );
  for (const s of sides) await s.stop();
} finally {
  await admin.close();
  await server.stop();
}

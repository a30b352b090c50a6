/**
 * Turns/s on PostgreSQL against SQLite, in the same run: two gateways in this process, one on the
 * SQLite file and one on a throwaway local PostgreSQL (testkit, fsync on, synchronous_commit on),
 * each with its own instant fake Anthropic, the same tools and the same checker. A turn is
 * model → execute (one auto tool call: three receipts, the turn and its messages recorded) → model.
 * Sequential turns alternate between the backends each round (the machine's load hits both alike);
 * then 20 conversations at once on each, one backend after the other, twice. Wall-clock numbers on
 * a shared machine: compare the ratios within one run.
 * Run: bun bench/postgres-turns.bench.ts [rounds = 30]
 */
import { loadavg } from "node:os";
import { join } from "node:path";
import { createTypechecker } from "../packages/core/src/codemode/typecheck.ts";
import { defineTool, z } from "../packages/sdk/src/index.ts";
import {
  type RecordedRequest,
  startFakeAnthropic,
  textTurn,
  toolUseTurn,
} from "../packages/testkit/src/anthropic/fake-server.ts";
import { startPostgres } from "../packages/testkit/src/postgres.ts";
import { makeTempDir } from "../packages/testkit/src/temp.ts";
import { createGateway } from "../apps/gateway/src/gateway.ts";
import { fmtMs, printTable } from "./lib.ts";

const ROUNDS = Number(process.argv[2] ?? 30);
const AT_ONCE = 20;
const KEY = "sk-ant-api03-bench-000000000000";
const SNIPPET = 'return await tools.notes.add({ text: "x" });';

const tools = {
  notes: {
    add: defineTool({
      description: "Add a note",
      approval: "auto",
      args: z.object({ text: z.string() }),
      run: async (i: { text: string }) => ({ id: 1, ...i }),
    }),
  },
};
const checker = createTypechecker();
await checker.warmUp();

async function side(name: string, storageUrl?: string) {
  const api = await startFakeAnthropic();
  const dir = makeTempDir(`oa-bench-turns-${name}-`);
  const gateway = await createGateway({
    cwd: dir,
    env: { ANTHROPIC_API_KEY: KEY },
    tools,
    configDir: join(dir, "config"),
    typechecker: checker,
    settings: { anthropic: { baseURL: api.url }, ...(storageUrl ? { storageUrl } : {}) },
  });
  await gateway.warm;
  let seq = 0;
  let calls = 0;
  const turn = async () => {
    const n = ++seq;
    api.script([toolUseTurn({ id: `toolu_${n}`, name: "execute", input: { code: SNIPPET } }), textTurn("Added.")]);
    const t0 = performance.now();
    const out = await gateway.handleMessage({ sessionKey: `${name}-${n}`, surface: "bench", text: "add a note" });
    if (out.stopReason !== "answered") throw new Error(`${name}: turn ended ${out.stopReason}`);
    return performance.now() - t0;
  };
  /** `AT_ONCE` conversations at once; each scripts its own two responses (the fake answers in order). */
  const burst = async () => {
    // Requests of concurrent turns arrive in any order: each answer depends on what it was sent
    // (a conversation's first request gets the tool call, the one carrying its result the answer).
    const step = (req: RecordedRequest) => {
      const last = (req.body.messages as Array<{ content: unknown }>).at(-1)!;
      const result =
        Array.isArray(last.content) && last.content.some((b: { type: string }) => b.type === "tool_result");
      return result
        ? textTurn("Added.")
        : toolUseTurn({ id: `toolu_b${++calls}`, name: "execute", input: { code: SNIPPET } });
    };
    api.script(Array.from({ length: 2 * AT_ONCE }, () => step));
    const t0 = performance.now();
    const outs = await Promise.all(
      Array.from({ length: AT_ONCE }, () =>
        gateway.handleMessage({ sessionKey: `${name}-burst-${++seq}`, surface: "bench", text: "add a note" }),
      ),
    );
    if (outs.some((o) => o.stopReason !== "answered")) throw new Error(`${name}: a turn of the burst did not answer`);
    return AT_ONCE / ((performance.now() - t0) / 1000);
  };
  return {
    name,
    turn,
    burst,
    close: async () => {
      await gateway.shutdown();
      await api.close();
    },
  };
}

const server = await startPostgres({ settings: { fsync: "on", synchronous_commit: "on" } });
try {
  const sqlite = await side("sqlite");
  const postgres = await side("postgres", await server.freshDatabase());
  const sides = [sqlite, postgres];
  const times = new Map<string, number[]>(sides.map((s) => [s.name, []]));
  for (let r = 0; r < 3; r++) for (const s of sides) await s.turn(); // warm-up
  for (let r = 0; r < ROUNDS; r++)
    for (const s of r % 2 ? [...sides].reverse() : sides) times.get(s.name)!.push(await s.turn());
  const bursts = new Map<string, number[]>(sides.map((s) => [s.name, []]));
  for (let r = 0; r < 2; r++) for (const s of sides) bursts.get(s.name)!.push(await s.burst());
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))]!;
  const row = (name: string) => ({
    backend: name,
    "turn median": fmtMs(median(times.get(name)!)),
    "turn p95": fmtMs(p95(times.get(name)!)),
    "turns/s one at a time": (1000 / median(times.get(name)!)).toFixed(1),
    [`turns/s ${AT_ONCE} at once`]: Math.max(...bursts.get(name)!).toFixed(1),
  });
  printTable(
    `Turns on PostgreSQL vs SQLite (${ROUNDS} rounds alternating, instant fake model, one auto tool call; load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")})`,
    [row("sqlite"), row("postgres")],
  );
  console.log(
    `postgres / sqlite: turn median ${(median(times.get("postgres")!) / median(times.get("sqlite")!)).toFixed(2)}×, ` +
      `turns/s ${AT_ONCE} at once ${(Math.max(...bursts.get("postgres")!) / Math.max(...bursts.get("sqlite")!)).toFixed(2)}×`,
  );
  for (const s of sides) await s.close();
} finally {
  await server.stop();
  await checker.close();
}

/**
 * Code-mode sandbox overhead against its peers, in one run. The snippet (3 sequential awaited tool
 * calls + 3 in Promise.all) runs in:
 *  - the child-process pool alone, and the code-mode runner users get (pool + transpile + policy +
 *    receipts as the gateway opens them: a key dir, the receipt journal, SQLite on a real file);
 *  - isolated-vm 5.0.4 (reused isolate) and @utcp/code-mode 1.2.12, under Node (bench/peers/,
 *    installed there on demand, never by the root install);
 *  - direct host calls in the same process (Bun for ours, Node for the peers): overhead = median
 *    minus that baseline.
 * Runs are spaced 50 ms apart (like chat turns) and interleaved in rounds across all systems, so
 * drift on this noisy VM hits every system alike. Also: back to back, per tool crossing (1000
 * sequential awaits minus an empty run), and 10 parallel 20 ms tools.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { defineTool, z, type ToolDefinition, type ToolTree } from "../packages/sdk/src/index.ts";
import { bench, fmtMs, printTable, quantiles, type BenchResult } from "./lib.ts";
import { createSandboxPool } from "../packages/core/src/sandbox/pool.ts";
import { prepareVm, restoreVm, VmRun } from "../packages/core/src/sandbox/vm-run.ts";
import {
  defaultSandboxLimits,
  type HostCallResult,
  type SandboxRunOptions,
} from "../packages/core/src/sandbox/types.ts";
import { createCodeModeRunner } from "../packages/core/src/codemode/runner.ts";
import { openDatabase } from "../packages/core/src/db/open.ts";
import { createSqliteReceiptStore } from "../packages/core/src/receipts/sqlite/store.ts";
import { makeTempDir } from "../packages/testkit/src/temp.ts";

const toolPaths = ["calendar.list", "calendar.get", "mail.search", "mail.get"];
const onToolCall = async (path: string, inputJson: string): Promise<HostCallResult> => {
  const input = JSON.parse(inputJson) as Record<string, unknown>;
  return { ok: true, json: JSON.stringify({ id: 7, path, title: "Standup", input }) };
};

const SNIPPETS = {
  six: `
const a = await tools.calendar.list({ day: 1 });
const b = await tools.calendar.get({ id: a.id });
const c = await tools.mail.search({ q: "invoice" });
const [d, e, f] = await Promise.all([tools.mail.get({ id: 1 }), tools.mail.get({ id: 2 }), tools.calendar.get({ id: 3 })]);
return { a: a.id, b: b.id, c: c.id, d: d.id, e: e.id, f: f.id };`,
  thousand: `let n = 0; for (let i = 0; i < 1000; i++) n += (await tools.calendar.get({ id: i })).id; return n;`,
  empty: `return 1;`,
} as const;
type Snippet = keyof typeof SNIPPETS;
const PARALLEL = `return await Promise.all(Array.from({ length: 10 }, (_, i) => tools.slow.wait({ i })));`;

// Direct: the same six calls and JSON work, straight in the host.
async function direct(): Promise<unknown> {
  const call = async (path: string, input: unknown) => {
    const r = await onToolCall(path, JSON.stringify(input));
    return r.ok && r.json !== undefined ? (JSON.parse(r.json) as { id: number }) : undefined;
  };
  const a = await call("calendar.list", { day: 1 });
  const b = await call("calendar.get", { id: a!.id });
  const c = await call("mail.search", { q: "invoice" });
  const [d, e, f] = await Promise.all([
    call("mail.get", { id: 1 }),
    call("mail.get", { id: 2 }),
    call("calendar.get", { id: 3 }),
  ]);
  return JSON.stringify({ a: a!.id, b: b!.id, c: c!.id, d: d!.id, e: e!.id, f: f!.id });
}

// QuickJS in the bench process: the runner the children use, on one instance restored to its
// snapshot before each run (as a child does between runs).
const inProcessVm = await prepareVm(defaultSandboxLimits.memoryBytes);
async function inProcess(code: string): Promise<unknown> {
  const prepared = inProcessVm;
  restoreVm(prepared);
  return new Promise((resolve, reject) => {
    const run: VmRun = new VmRun(
      prepared,
      { code, toolPaths, limits: { ...defaultSandboxLimits, maxToolCalls: 2000 } },
      {
        wait(calls) {
          for (const [id, path, json] of calls) {
            void onToolCall(path, json).then((r) => run.deliver([r.ok ? [id, r.json] : [id, null, r.error]]));
          }
        },
        done(outcome) {
          if (outcome.ok) resolve(outcome.valueJson);
          else reject(new Error(outcome.error.message));
        },
      },
    );
    run.start();
  });
}

// The pool as the gateway configures it (two warm children).
const pool = createSandboxPool({ minIdle: 2 });
await pool.warmUp();
const slowPaths = ["slow.wait"];
const slowToolCall = async (_path: string, inputJson: string): Promise<HostCallResult> => (
  await Bun.sleep(20), { ok: true, json: inputJson }
);
const inPool = async (code: string, paths: readonly string[] = toolPaths, host = onToolCall) => {
  const options: SandboxRunOptions = { code, toolPaths: paths, onToolCall: host, limits: { maxToolCalls: 2000 } };
  const r = await pool.run(options);
  if (!r.ok) throw new Error(`${r.error.name}: ${r.error.message}`);
  return r.valueJson;
};

// The runner users get: transpile, policy, zod validation and SQLite receipts on a real file.
const dir = makeTempDir("oa-bench-sandbox-");
const result = (path: string) => async (input: unknown) => ({ id: 7, path, title: "Standup", input });
const anyInput = z.object({}).passthrough();
const tree: ToolTree = {
  calendar: {
    list: defineTool({ description: "list", approval: "auto", args: anyInput, run: result("calendar.list") }),
    get: defineTool({ description: "get", approval: "auto", args: anyInput, run: result("calendar.get") }),
  },
  mail: {
    search: defineTool({ description: "search", approval: "auto", args: anyInput, run: result("mail.search") }),
    get: defineTool({ description: "get", approval: "auto", args: anyInput, run: result("mail.get") }),
  },
  slow: {
    wait: defineTool({
      description: "wait",
      approval: "auto",
      args: anyInput,
      run: async (i) => (await Bun.sleep(20), i),
    }),
  },
};
/** A runner over `tools` on the shared pool with its own receipts file, and a call that throws on a failed run. */
let runners = 0;
function runnerOver(tools: ToolTree) {
  // As the gateway opens it: a key dir and the receipt journal (one owner per database, so one file each).
  const at = join(dir, `runner-${++runners}`);
  const r = createCodeModeRunner({
    tools,
    receipts: createSqliteReceiptStore(openDatabase(join(at, "oa.sqlite")), {
      keyDir: join(at, "config"),
      journal: true,
    }),
    requestApproval: async () => ({ decision: "denied", by: "bench" }),
    sandbox: pool,
    limits: { maxToolCalls: 2000 },
  });
  const run = async (code: string) => {
    const result = await r.runPromise(code);
    if (!result.ok) throw new Error(`${result.error?.name}: ${result.error?.message}`);
    return result.valueJson;
  };
  return { runner: r, run };
}
const { runner, run: viaRunner } = runnerOver(tree);
// The same tools declared `readOnly` (they only read): no commit point per call (docs/receipts.md).
const readOnlyTree: ToolTree = Object.fromEntries(
  Object.entries(tree).map(([ns, group]) => [
    ns,
    Object.fromEntries(
      Object.entries(group).map(([name, t]) => {
        const d = t as ToolDefinition;
        return [
          name,
          defineTool({ description: d.description, approval: "auto", readOnly: true, args: anyInput, run: d.run }),
        ];
      }),
    ),
  ]),
);
const { runner: readOnlyRunner, run: viaReadOnlyRunner } = runnerOver(readOnlyTree);

// ── peers under Node ─────────────────────────────────────────────────────────────────────────
const peersDir = join(import.meta.dir, "peers");
type PeerName = "direct" | "ivm" | "ivm-context" | "code-mode";
interface Peers {
  run(peer: PeerName, snippet: Snippet, n: number, pauseMs: number): Promise<number[]>;
  close(): void;
}
/** Installs bench/peers on demand (npm ci builds isolated-vm's addon) and starts the Node side. */
async function startPeers(): Promise<Peers | string> {
  if (!Bun.which("node")) return "node is not installed";
  if (!existsSync(join(peersDir, "node_modules", "isolated-vm", "out", "isolated_vm.node"))) {
    console.error(
      "bench/peers: installing isolated-vm and @utcp/code-mode with npm ci (builds a native addon, takes minutes)…",
    );
    const install = Bun.spawnSync(["npm", "ci", "--no-audit", "--no-fund", "--legacy-peer-deps"], {
      cwd: peersDir,
      stdout: "inherit",
      stderr: "inherit",
    });
    if (install.exitCode !== 0) return `npm ci in bench/peers failed (exit ${install.exitCode})`;
  }
  const proc = Bun.spawn(["node", join(peersDir, "peers.mjs")], {
    cwd: peersDir,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  const lines = (async function* () {
    let buffered = "";
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout) {
      buffered += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        yield buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
      }
    }
  })();
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error("the peers process exited");
    return JSON.parse(value) as Record<string, unknown>;
  };
  const hello = await next().catch((e: Error) => ({ error: e.message }));
  if (!("ready" in hello)) return `the peers process did not start (${JSON.stringify(hello)})`;
  return {
    async run(peer, snippet, n, pauseMs) {
      proc.stdin.write(`${JSON.stringify({ peer, snippet, n, pauseMs })}\n`);
      proc.stdin.flush();
      return (await next()).samples as number[];
    },
    close: () => proc.kill(),
  };
}
const peers = await startPeers();
const peerNote = typeof peers === "string" ? peers : undefined;
if (peerNote) console.error(`bench/peers unavailable: ${peerNote}`);

// ── interleaved, spaced runs of the 6-call snippet ───────────────────────────────────────────
const PAUSE = 50;
const ROUNDS = 6;
const PER_ROUND = 10;
/** `before` runs after each pause and outside the timing (the transpile a gateway turn does during the typecheck). */
async function spaced(fn: () => Promise<unknown>, n: number, before?: () => void): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    await Bun.sleep(PAUSE);
    before?.();
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  return samples;
}
type System = { name: string; base: "bun" | "node"; sample: (n: number) => Promise<number[]> };
const systems: System[] = [
  { name: "direct host calls, Bun (baseline for ours)", base: "bun", sample: (n) => spaced(direct, n) },
  {
    name: "sandbox pool alone (child process, pristine QuickJS per run)",
    base: "bun",
    sample: (n) => spaced(() => inPool(SNIPPETS.six), n),
  },
  {
    name: "code-mode runner (pool + transpile + policy + SQLite receipts)",
    base: "bun",
    sample: (n) => spaced(() => viaRunner(SNIPPETS.six), n),
  },
  {
    name: "code-mode runner, the same tools declared readOnly",
    base: "bun",
    sample: (n) => spaced(() => viaReadOnlyRunner(SNIPPETS.six), n),
  },
  {
    name: "code-mode runner, transpiled ahead (a gateway turn does it during the typecheck)",
    base: "bun",
    sample: (n) =>
      spaced(
        () => viaRunner(SNIPPETS.six),
        n,
        () => runner.prepare(SNIPPETS.six),
      ),
  },
];
if (typeof peers !== "string") {
  systems.push(
    {
      name: "direct host calls, Node (baseline for peers)",
      base: "node",
      sample: (n) => peers.run("direct", "six", n, PAUSE),
    },
    {
      name: "isolated-vm 5.0.4, reused isolate, fresh context per run",
      base: "node",
      sample: (n) => peers.run("ivm-context", "six", n, PAUSE),
    },
    {
      name: "isolated-vm 5.0.4, reused isolate and context",
      base: "node",
      sample: (n) => peers.run("ivm", "six", n, PAUSE),
    },
    { name: "@utcp/code-mode 1.2.12", base: "node", sample: (n) => peers.run("code-mode", "six", n, PAUSE) },
  );
}
// Warm every system (JIT, caches, the receipts table) before measuring.
for (const s of systems) await s.sample(10);
const samples = new Map<string, number[]>(systems.map((s) => [s.name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const s of systems) samples.get(s.name)!.push(...(await s.sample(PER_ROUND)));
}
const stats = new Map(systems.map((s) => [s.name, quantiles(samples.get(s.name)!)]));
const baseOf = (s: System) => stats.get(systems.find((x) => x.base === s.base)!.name)!.median;
const overhead = new Map(systems.map((s) => [s.name, stats.get(s.name)!.median - baseOf(s)]));
const ivmName = "isolated-vm 5.0.4, reused isolate, fresh context per run";
const ivmOverhead = overhead.get(ivmName);
printTable(
  `Sandbox vs peers: 6-call snippet (3 sequential + 3 in Promise.all), runs ${PAUSE} ms apart, ${ROUNDS} interleaved rounds of ${PER_ROUND}`,
  systems.map((s) => {
    const q = stats.get(s.name)!;
    const o = overhead.get(s.name)!;
    return {
      system: s.name,
      median: fmtMs(q.median),
      p95: fmtMs(q.p95),
      "overhead (median − direct)": s.name.startsWith("direct") ? "—" : fmtMs(o),
      "× isolated-vm overhead":
        ivmOverhead === undefined || s.name.startsWith("direct") ? "—" : `${(o / ivmOverhead).toFixed(2)}×`,
    };
  }),
);
if (peerNote) console.log(`\nPeers not measured: ${peerNote}.`);

// ── back to back ─────────────────────────────────────────────────────────────────────────────
const iterations = 200;
const backToBack: BenchResult[] = [
  await bench("sandbox pool alone", () => inPool(SNIPPETS.six), { iterations, warmup: 30 }),
  await bench("code-mode runner", () => viaRunner(SNIPPETS.six), { iterations, warmup: 30 }),
];
const spacedOf = {
  "sandbox pool alone": stats.get(systems[1]!.name)!.median,
  "code-mode runner": stats.get(systems[2]!.name)!.median,
} as Record<string, number>;
printTable(
  "Back to back (no pause between runs) vs spaced; target ≤ 1.5× spaced",
  backToBack.map((r) => ({
    system: r.name,
    "back to back median": fmtMs(r.medianMs),
    p95: fmtMs(r.p95Ms),
    "spaced median": fmtMs(spacedOf[r.name]!),
    "back to back / spaced": `${(r.medianMs / spacedOf[r.name]!).toFixed(2)}×`,
  })),
);

// ── per tool crossing ────────────────────────────────────────────────────────────────────────
const crossRows: Array<Record<string, string>> = [];
async function crossing(
  name: string,
  run: (s: Snippet) => Promise<unknown>,
  emptyMs?: (n: number) => Promise<number[]>,
  manyMs?: (n: number) => Promise<number[]>,
) {
  const empty = emptyMs
    ? quantiles(await emptyMs(30)).median
    : (await bench(`${name} empty`, () => run("empty"), { iterations: 30, warmup: 5 })).medianMs;
  const many = manyMs
    ? quantiles(await manyMs(9)).median
    : (await bench(`${name} 1000`, () => run("thousand"), { iterations: 9, warmup: 2 })).medianMs;
  crossRows.push({
    system: name,
    "empty run": fmtMs(empty),
    "1000 sequential calls": fmtMs(many),
    "per crossing": fmtMs((many - empty) / 1000),
  });
  return (many - empty) / 1000;
}
const perCrossing = {
  inProcess: await crossing("QuickJS in-process (no process boundary)", (s) => inProcess(SNIPPETS[s])),
  pool: await crossing("sandbox pool alone", (s) => inPool(SNIPPETS[s])),
  runner: await crossing("code-mode runner (incl. receipts)", (s) => viaRunner(SNIPPETS[s])),
  readOnly: await crossing("code-mode runner, readOnly tools (incl. receipts)", (s) => viaReadOnlyRunner(SNIPPETS[s])),
  ivm: undefined as number | undefined,
};
if (typeof peers !== "string") {
  perCrossing.ivm = await crossing(
    "isolated-vm 5.0.4",
    async () => undefined,
    (n) => peers.run("ivm", "empty", n, 0),
    (n) => peers.run("ivm", "thousand", n, 0),
  );
  await crossing(
    "@utcp/code-mode 1.2.12",
    async () => undefined,
    (n) => peers.run("code-mode", "empty", n, 0),
    (n) => peers.run("code-mode", "thousand", n, 0),
  );
}
printTable(
  "Cost per tool crossing (1000 sequential awaits minus an empty run); target ≤ 100 µs incl. receipts",
  crossRows,
);

// ── parallel tools overlap ───────────────────────────────────────────────────────────────────
const par = [
  await bench("sandbox pool alone", () => inPool(PARALLEL, slowPaths, slowToolCall), { iterations: 30, warmup: 3 }),
  await bench("code-mode runner (incl. receipts)", () => viaRunner(PARALLEL), { iterations: 30, warmup: 3 }),
];
printTable(
  "10 tools of 20 ms each in one Promise.all (serial would be 200 ms)",
  par.map((r) => ({
    system: r.name,
    median: fmtMs(r.medianMs),
    p95: fmtMs(r.p95Ms),
    "× one tool (20 ms)": `${(r.medianMs / 20).toFixed(2)}×`,
  })),
);

// ── the targets of issue 13, as ratios in this run ───────────────────────────────────────────
/** One per-run row: this system's overhead against isolated-vm's. */
const perRunRow = (target: string, system: System) => {
  const o = overhead.get(system.name)!;
  return {
    target,
    measured:
      ivmOverhead === undefined
        ? `${fmtMs(o)} (no peer)`
        : `${fmtMs(o)} vs ${fmtMs(ivmOverhead)} = ${(o / ivmOverhead).toFixed(2)}×`,
    ok: ivmOverhead === undefined ? "?" : o <= ivmOverhead ? "yes" : "NO",
  };
};
printTable("Issue 13 sandbox targets (this run)", [
  perRunRow("runner per-run overhead ≤ isolated-vm's (reused isolate)", systems[2]!),
  perRunRow("the same, tools declared readOnly", systems[3]!),
  perRunRow("the same, transpiled ahead (as in a gateway turn)", systems[4]!),
  perRunRow("pool alone per-run overhead vs isolated-vm's", systems[1]!),
  ...backToBack.map((r) => ({
    target: `${r.name}: back to back ≤ 1.5× spaced`,
    measured: `${(r.medianMs / spacedOf[r.name]!).toFixed(2)}×`,
    ok: r.medianMs <= 1.5 * spacedOf[r.name]! ? "yes" : "NO",
  })),
  {
    target: "per tool crossing incl. receipts ≤ 100 µs",
    measured: fmtMs(perCrossing.runner),
    ok: perCrossing.runner <= 0.1 ? "yes" : "NO",
  },
  {
    target: "the same, tools declared readOnly",
    measured: fmtMs(perCrossing.readOnly),
    ok: perCrossing.readOnly <= 0.1 ? "yes" : "NO",
  },
  {
    target: "pool alone per crossing vs isolated-vm's",
    measured:
      perCrossing.ivm === undefined
        ? fmtMs(perCrossing.pool)
        : `${fmtMs(perCrossing.pool)} vs ${fmtMs(perCrossing.ivm)}`,
    ok: "",
  },
  {
    target: "10 parallel 20 ms tools ≈ 20 ms (runner)",
    measured: fmtMs(par[1]!.medianMs),
    ok: par[1]!.medianMs < 40 ? "yes" : "NO",
  },
]);

if (typeof peers !== "string") peers.close();
await runner.close();
await readOnlyRunner.close();
await pool.close();

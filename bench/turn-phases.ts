/**
 * Where a turn's time goes (bench/gateway.bench.ts section 2, taken apart): the same gateway,
 * strict fake Anthropic and trivial tool, with the turn's events timestamped, its typechecker and
 * sandbox pool wrapped to time them, and the gateway thread's CPU per turn. Each phase is the wall
 * time between two points of the turn; the model phases have the SDK's own time for the same
 * request (replayed right after the turn) taken off. Not part of `bun run bench`.
 * Usage: bun bench/turn-phases.ts [turns = 60]
 */
import { join } from "node:path";
import { buildSdkClient } from "../apps/gateway/src/model/sdk-client.ts";
import { createGateway } from "../apps/gateway/src/gateway.ts";
import type { GatewayEvent } from "../apps/gateway/src/events/types.ts";
import { createTypechecker, GATEWAY_PRACTICE_CHECKS } from "../packages/core/src/codemode/typecheck.ts";
import { createSandboxPool } from "../packages/core/src/sandbox/pool.ts";
import type { SandboxPool } from "../packages/core/src/sandbox/types.ts";
import { defineTool, z } from "../packages/sdk/src/index.ts";
import { startFakeAnthropic, textTurn, toolUseTurn } from "../packages/testkit/src/anthropic/fake-server.ts";
import { makeTempDir } from "../packages/testkit/src/temp.ts";
import { fmtMs, printTable, quantiles } from "./lib.ts";

const N = Number(process.argv[2] ?? 60);
const KEY = "sk-ant-api03-bench-000000000000";
const SNIPPET = 'return await tools.notes.add({ text: "x" });';
const threadCpuMs = () => {
  const u = (process as unknown as { threadCpuUsage(): { user: number; system: number } }).threadCpuUsage();
  return (u.user + u.system) / 1000;
};

const api = await startFakeAnthropic();
const dir = makeTempDir("oa-bench-phases-");
const at: Record<string, number> = {};
const checker = createTypechecker({ practiceChecks: GATEWAY_PRACTICE_CHECKS });
const typechecker = {
  ...checker,
  check: async (code: string, declarations: string) => {
    at.checkStart = performance.now();
    const r = await checker.check(code, declarations);
    at.checkEnd = performance.now();
    return r;
  },
};
const pool = createSandboxPool({ minIdle: 2 });
const sandbox: SandboxPool = {
  ...pool,
  run: async (o) => {
    at.sandboxStart = performance.now();
    const r = await pool.run({
      ...o,
      onToolCall: async (path, input) => {
        at.toolStart = performance.now();
        try {
          return await o.onToolCall(path, input);
        } finally {
          at.toolEnd = performance.now();
        }
      },
    });
    at.sandboxEnd = performance.now();
    return r;
  },
};
const gateway = await createGateway({
  cwd: dir,
  env: { ANTHROPIC_API_KEY: KEY },
  tools: {
    notes: {
      add: defineTool({
        description: "Add a note",
        approval: "auto",
        args: z.object({ text: z.string() }),
        run: async (i) => ({ id: 1, ...i }),
      }),
    },
  },
  configDir: join(dir, "config"),
  settings: { anthropic: { baseURL: api.url } },
  typechecker,
  sandbox,
});
await gateway.warm;
await Bun.sleep(3_000); // the checker's JIT warm-up runs in idle time once it is warm (typecheck-child.ts)
const sdk = await buildSdkClient(
  { profileId: "bench", source: "env", type: "api_key", secret: KEY },
  { baseURL: api.url },
);

const rows: Record<string, number[]> = {};
const push = (k: string, v: number) => (rows[k] ??= []).push(v);
for (let i = 0; i < N + 5; i++) {
  api.script([toolUseTurn({ id: "toolu_b", name: "execute", input: { code: SNIPPET } }), textTurn("Added the note.")]);
  const before = api.messageRequests().length;
  for (const k of Object.keys(at)) delete at[k];
  let ranOk = false;
  const onEvent = (e: GatewayEvent) => {
    const k = e.type === "model.request" ? `model.request${e.round}` : e.type;
    at[k] ??= performance.now();
    if (e.type === "run.finished") ranOk = e.ok;
  };
  const c0 = threadCpuMs();
  const t0 = performance.now();
  const outcome = await gateway.handleMessage({ sessionKey: `p-${i}`, surface: "bench", text: "add", onEvent });
  const t1 = performance.now();
  const c1 = threadCpuMs();
  if (outcome.runIds.length !== 1 || !ranOk) throw new Error(`the turn did not run the tool: ${outcome.text}`);
  const bodies = api
    .messageRequests()
    .slice(before)
    .map((r) => r.body);
  api.script([toolUseTurn({ id: "toolu_b", name: "execute", input: { code: "return 1" } }), textTurn("ok")]);
  const sdkMs: number[] = [];
  const c2 = threadCpuMs();
  for (const body of bodies) {
    const { stream: _s, ...params } = body;
    const b0 = performance.now();
    await sdk.messages.stream(params).finalMessage();
    sdkMs.push(performance.now() - b0);
  }
  const c3 = threadCpuMs();
  if (i < 5) continue;
  const [sdk1, sdk2] = sdkMs as [number, number];
  push("overhead (turn − the 2 requests through the SDK)", t1 - t0 - sdk1 - sdk2);
  push("  handleMessage → turn.started (session, turn row)", at["turn.started"]! - t0);
  push("  turn.started → request 1 (history, prompt)", at["model.request1"]! - at["turn.started"]!);
  push("  request 1 → check starts, minus the SDK's time for it", at.checkStart! - at["model.request1"]! - sdk1);
  push("  typecheck (checker process, IPC included)", at.checkEnd! - at.checkStart!);
  push("  check → sandbox run starts (transpile, invoker)", at.sandboxStart! - at.checkEnd!);
  push("  sandbox: run sent → tool call arrives", at.toolStart! - at.sandboxStart!);
  push("  tool call on the host (receipts, validation, the tool)", at.toolEnd! - at.toolStart!);
  push("  sandbox: tool result sent → run result", at.sandboxEnd! - at.toolEnd!);
  push("  run result → request 2 (receipts durable, summary, request)", at["model.request2"]! - at.sandboxEnd!);
  const finished = at["turn.finished"]! - at["model.request2"]!;
  push("  request 2 → turn.finished, minus the SDK's time for it", finished - sdk2);
  push("  turn.finished → handleMessage returns", t1 - at["turn.finished"]!);
  push("gateway thread CPU per turn, minus the SDK replay's", c1 - c0 - (c3 - c2));
}
const load = (await Bun.file("/proc/loadavg").text()).trim();
const s = checker.stats();
printTable(
  `Where a turn's time goes (${N} turns, strict fake model, one trivial tool call; load average ${load})`,
  Object.entries(rows).map(([phase, xs]) => {
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    const { median, p95 } = quantiles(xs);
    // Thread CPU advances at scheduler ticks: its mean is meaningful, a single turn's value is not.
    return phase.startsWith("gateway thread CPU")
      ? { phase, median: `mean ${fmtMs(mean)}`, p95: "" }
      : { phase, median: fmtMs(median), p95: fmtMs(p95) };
  }),
);
console.log(
  `checker process: ${s.checked} checks, CPU ${fmtMs(s.checkerCpuMs / s.checked)} per check (mean), ` +
    `${s.coldChecks} had to build their checker`,
);
await gateway.shutdown();
await checker.close();
await pool.close();
await api.close();

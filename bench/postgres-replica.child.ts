/**
 * Child process for bench/postgres-replica.bench.ts: one gateway as `openassistant start` builds it
 * (its sandbox pool and typechecker started first), on SQLite or on `storage.url`, talking to the
 * parent's fake Anthropic. Commands over IPC: { burst: n } runs n new conversations at once (one
 * tool call each) and answers { ms, cpuMs, phases } (each phase's median over the burst's turns);
 * { stop: true } shuts the gateway down.
 * argv: <projectDir> <anthropic URL> <storage URL or "sqlite">
 */
import { join } from "node:path";
import { createGateway, startGatewayProcesses } from "../apps/gateway/src/gateway.ts";
import { defineTool, z } from "../packages/sdk/src/index.ts";

const [dir, anthropicUrl, storage] = process.argv.slice(2) as [string, string, string];
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
const processes = startGatewayProcesses();
const gateway = await createGateway({
  cwd: dir,
  env: { ANTHROPIC_API_KEY: "sk-ant-api03-bench-000000000000" },
  tools,
  processes,
  configDir: join(dir, "config"),
  settings: { anthropic: { baseURL: anthropicUrl }, ...(storage === "sqlite" ? {} : { storageUrl: storage }) },
});
await gateway.warm;

/** Where a turn's time goes: the wall time between its events (the fake model answers at once). */
const PHASES = [
  ["session, history, turn start", "turn.started", "model.request1"],
  ["model, typecheck", "model.request1", "run.started"],
  ["run (sandbox, tool, receipts)", "run.started", "run.finished"],
  ["after the run", "run.finished", "model.request2"],
  ["model, messages, turn end", "model.request2", "turn.finished"],
] as const;
const marks = new Map<string, Record<string, number>>();
gateway.events.subscribe((e) => {
  if (!("turnId" in e) || !e.turnId) return;
  const at = marks.get(e.turnId) ?? {};
  marks.set(e.turnId, at);
  at[e.type === "model.request" ? `model.request${e.round}` : e.type] ??= performance.now();
});
/** Each phase's median over the turns marked since the last call (ms). */
function phaseMedians(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, from, to] of PHASES) {
    const xs = [...marks.values()].flatMap((m) => (m[from] && m[to] ? [m[to]! - m[from]!] : [])).sort((a, b) => a - b);
    if (xs.length) out[name] = xs[Math.floor(xs.length / 2)]!;
  }
  marks.clear();
  return out;
}
let seq = 0;
process.on("message", async (command: { burst?: number; stop?: boolean }) => {
  if (command.stop) {
    await gateway.shutdown();
    process.send!({ stopped: true });
    process.exit(0);
  }
  const n = command.burst!;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  // A turn that throws is counted as failed (and named), not left to end this process.
  const errors: string[] = [];
  const outs = await Promise.all(
    Array.from({ length: n }, () =>
      gateway
        .handleMessage({ sessionKey: `bench-${++seq}`, surface: "bench", text: "add a note" })
        .catch((e: unknown) => {
          errors.push(e instanceof Error ? e.message : String(e));
          return { stopReason: "threw" };
        }),
    ),
  );
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const failed = outs.filter((o) => o.stopReason !== "answered").length;
  process.send!({ ms, cpuMs: (cpu.user + cpu.system) / 1000, failed, errors, phases: phaseMedians() });
});
process.send!({ ready: true });

/**
 * The parent's CPU per tool call spent by the code-mode runner outside the receipt store: 1000
 * sequential awaited calls through `createCodeModeRunner` with a receipt store that does nothing,
 * against the same snippet on the sandbox pool alone with a plain host function. The difference is
 * the invoker's own work (policy, validation, redaction, previews, the tool's timeout and signal).
 * Rounds alternate the two, so drift on this noisy VM hits both alike; medians over the rounds.
 * CPU is `process.cpuUsage()` of this (the parent) process; the sandbox child's CPU is not in it.
 */
import { defineTool, z, type ToolTree } from "../packages/sdk/src/index.ts";
import { createCodeModeRunner } from "../packages/core/src/codemode/runner.ts";
import type { ReceiptStaging } from "../packages/core/src/receipts/port.ts";
import type { HostCallResult } from "../packages/core/src/sandbox/types.ts";
import { createSandboxPool } from "../packages/core/src/sandbox/pool.ts";
import { printTable, quantiles } from "./lib.ts";

const CALLS = 1000;
const ROUNDS = Number(process.env.ROUNDS ?? 12);
const code = `let n = 0; for (let i = 0; i < ${CALLS}; i++) n += (await tools.calendar.get({ id: i })).id; return n;`;
const limits = { maxToolCalls: CALLS * 2 };

const tree: ToolTree = {
  calendar: {
    get: defineTool({
      description: "Gets an event",
      approval: "auto",
      args: z.looseObject({}),
      run: async (input) => ({ id: 7, path: "calendar.get", title: "Standup", input }),
    }),
  },
};
// Only what the runner calls on a run of auto tools; nothing is kept, so no store cost is measured.
const noReceipts = { stage() {}, durable: () => Promise.resolve() } as ReceiptStaging;
const host = async (path: string, inputJson: string): Promise<HostCallResult> => {
  const input = JSON.parse(inputJson) as unknown;
  return { ok: true, json: JSON.stringify({ id: 7, path, title: "Standup", input }) };
};

const pool = createSandboxPool({ limits });
const runner = createCodeModeRunner({
  tools: tree,
  receipts: noReceipts,
  requestApproval: async () => ({ decision: "denied", by: "bench" }),
  sandbox: pool,
  limits,
});

const systems = {
  "sandbox pool alone": async () => {
    const r = await pool.run({ code, toolPaths: ["calendar.get"], onToolCall: host, limits });
    if (!r.ok) throw new Error(r.error.message);
  },
  "runner, no-op receipts": async () => {
    const r = await runner.runPromise(code);
    if (!r.ok) throw new Error(r.error?.message);
  },
};
const samples = new Map(Object.keys(systems).map((k) => [k, { cpu: [] as number[], wall: [] as number[] }]));
for (const run of Object.values(systems)) for (let i = 0; i < 3; i++) await run();
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(systems)) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await run();
    const wallUs = (performance.now() - t0) * 1000;
    const c = process.cpuUsage(c0);
    samples.get(name)!.cpu.push((c.user + c.system) / CALLS);
    samples.get(name)!.wall.push(wallUs / CALLS);
  }
}
await runner.close();
await pool.close();

const poolCpu = quantiles(samples.get("sandbox pool alone")!.cpu).median;
printTable(`Tool calls: parent CPU per call outside the receipt store (${ROUNDS} rounds × ${CALLS} calls)`, [
  ...[...samples].map(([name, s]) => {
    const cpu = quantiles(s.cpu);
    return {
      system: name,
      "CPU µs/call (median)": cpu.median.toFixed(1),
      "CPU µs/call (min)": cpu.min.toFixed(1),
      "over the pool": (cpu.median - poolCpu).toFixed(1),
      "wall µs/call (median)": quantiles(s.wall).median.toFixed(1),
    };
  }),
]);

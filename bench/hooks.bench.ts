/**
 * What plugin hooks cost a tool call (issue #29): the parent's CPU per call through the invoker
 * (`createToolInvoker`, no sandbox, a receipt store that does nothing), for
 *   - no hooks in the context (how the gateway ran before #29, and a fixed-tree gateway now),
 *   - an empty hook set (a project whose plugins register no hooks),
 *   - one synchronous `tool.before` hook that lets the call through,
 *   - one async `tool.before` hook (its answer is a promise: a timer guards it),
 *   - one `tool.after` hook that observes.
 * Rounds alternate the systems, so drift on a noisy VM hits all alike; medians over the rounds.
 */
import { defineTool, type PluginHooks, type ToolDefinition, z } from "../packages/sdk/src/index.ts";
import { createToolInvoker } from "../packages/core/src/codemode/tool-invoker.ts";
import { createHookSet, type HookSet } from "../packages/core/src/hooks/set.ts";
import type { ReceiptStaging } from "../packages/core/src/receipts/port.ts";
import { createRedactor } from "../packages/core/src/receipts/redact.ts";
import { printTable, quantiles } from "./lib.ts";

const CALLS = 2000;
const ROUNDS = Number(process.env.ROUNDS ?? 15);

const tools = new Map<string, ToolDefinition>([
  [
    "calendar.get",
    defineTool({
      description: "Gets an event",
      approval: "auto",
      args: z.object({ id: z.number() }),
      run: async ({ id }) => ({ id, title: "Standup" }),
    }),
  ],
]);
const noReceipts = { stage() {}, durable: () => Promise.resolve() } as ReceiptStaging;
const redact = createRedactor([]);

function invokerWith(hooks: HookSet | undefined) {
  return createToolInvoker({
    runId: "run_bench",
    sessionId: "sess_bench",
    requestedBy: "ann",
    code: "",
    tools,
    receipts: noReceipts,
    requestApproval: async () => ({ decision: "denied", by: "bench" }),
    policy: [],
    redact,
    approvalTimeoutMs: 60_000,
    toolTimeoutMs: 60_000,
    previewChars: 500,
    signal: new AbortController().signal,
    running: new Map(),
    ...(hooks ? { hooks } : {}),
  });
}

const one = (hooks: PluginHooks) => createHookSet([{ pluginId: "bench", hooks }]);
const systems: Record<string, ReturnType<typeof invokerWith>> = {
  "no hooks (as before #29)": invokerWith(undefined),
  "empty hook set": invokerWith(createHookSet([])),
  "one tool.before (sync)": invokerWith(one({ tool: { before: () => undefined } })),
  "one tool.before (async)": invokerWith(one({ tool: { before: async () => undefined } })),
  "one tool.after (sync)": invokerWith(one({ tool: { after: () => undefined } })),
};

const inputs = Array.from({ length: CALLS }, (_, i) => JSON.stringify({ id: i }));
async function cpuPerCallUs(invoker: ReturnType<typeof invokerWith>): Promise<number> {
  invoker.outcomes.length = 0;
  const t0 = process.cpuUsage();
  for (const input of inputs) {
    const r = await invoker.invoke("calendar.get", input);
    if (!r.ok) throw new Error(r.error.message);
  }
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / CALLS;
}

const samples = new Map<string, number[]>(Object.keys(systems).map((k) => [k, []]));
for (const invoker of Object.values(systems)) await cpuPerCallUs(invoker); // warm-up
for (let round = 0; round < ROUNDS; round++)
  for (const [name, invoker] of Object.entries(systems)) samples.get(name)!.push(await cpuPerCallUs(invoker));

const base = quantiles(samples.get("no hooks (as before #29)")!).median;
printTable(`Hooks: parent CPU per tool call (${CALLS} calls × ${ROUNDS} rounds, medians)`, [
  ...[...samples].map(([name, s]) => {
    const q = quantiles(s);
    return {
      system: name,
      "CPU µs / call (median)": q.median.toFixed(1),
      p95: q.p95.toFixed(1),
      "vs no hooks": `${q.median - base >= 0 ? "+" : ""}${(q.median - base).toFixed(1)} µs`,
    };
  }),
]);

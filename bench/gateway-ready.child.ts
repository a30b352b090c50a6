/**
 * Child process for bench/gateway.bench.ts: builds a gateway with 200 tools (config + tools + DB +
 * sandbox warm-up) and prints one JSON line with timings at ready, a second once the typechecker is warm, then shuts down.
 * argv: <projectDir> <mode: "workspace" | "tree" | "import">
 *   workspace: config + 200 tool files through core's loader;  tree: 200 tools passed as a tree;
 *   import: only load the gateway's modules (baseline for module loading).
 */
import { defineTool, z, type ToolTree } from "../packages/sdk/src/index.ts";
import { loadGatewaySettings } from "../apps/gateway/src/config-adapter.ts";
import * as gatewayModule from "../apps/gateway/src/gateway.ts";

const { createGateway } = gatewayModule;

const [dir, mode] = process.argv.slice(2) as [string, string];
const imported = performance.now();
if (mode === "import") {
  console.log(JSON.stringify({ sinceProcessStartMs: imported, createGatewayMs: 0, loadMs: 0, tools: 0 }));
  process.exit(0);
}
// As `openassistant start` does (cli/serve.ts): the child processes start before config and tools load.
// (Checkouts from before startGatewayProcesses existed start them inside createGateway.)
const processes = "startGatewayProcesses" in gatewayModule ? gatewayModule.startGatewayProcesses() : undefined;
const env = { ANTHROPIC_API_KEY: "sk-ant-api03-bench-000000000000", OPENASSISTANT_CONFIG_DIR: `${dir}/config` };
const t0 = performance.now();
let tools: ToolTree | undefined;
let loaded: Awaited<ReturnType<typeof loadGatewaySettings>> | undefined;
if (mode === "tree") {
  const tree: Record<string, Record<string, unknown>> = {};
  for (let i = 0; i < 200; i++) {
    const group = (tree[`group${i % 20}`] ??= {});
    group[`tool${i}`] = defineTool({
      description: `Benchmark tool ${i}`,
      approval: i % 5 === 0 ? "required" : "auto",
      args: z.object({
        id: z.string().describe("the id"),
        count: z.number().int().optional(),
        tags: z.array(z.string()).default([]),
      }),
      run: async (input) => ({ ok: true, input }),
    });
  }
  tools = tree as ToolTree;
} else {
  loaded = await loadGatewaySettings(dir, env);
}
const t1 = performance.now();
const gateway = await createGateway({ cwd: dir, env, tools, loaded, processes, configDir: `${dir}/config` });
const ready = performance.now();
console.log(
  JSON.stringify({
    sinceProcessStartMs: ready,
    importMs: imported,
    loadMs: t1 - t0,
    createGatewayMs: ready - t1,
    tools: gateway.tools().count,
  }),
);
// Before #13 createGateway() also waited for the checker; `warm` then resolves at once.
await (gateway as { warm?: Promise<void> }).warm;
console.log(JSON.stringify({ checkerWarmMs: performance.now() - ready }));
await gateway.shutdown();

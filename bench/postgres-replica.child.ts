/**
 * Child process for bench/postgres-replica.bench.ts: one gateway as `openassistant start` builds it
 * (its sandbox pool and typechecker started first), on SQLite or on `storage.url`, talking to the
 * parent's fake Anthropic. Commands over IPC: { burst: n } runs n new conversations at once (one
 * tool call each) and answers { ms, cpuMs }; { stop: true } shuts the gateway down.
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
  const outs = await Promise.all(
    Array.from({ length: n }, () =>
      gateway.handleMessage({ sessionKey: `bench-${++seq}`, surface: "bench", text: "add a note" }),
    ),
  );
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const failed = outs.filter((o) => o.stopReason !== "answered").length;
  process.send!({ ms, cpuMs: (cpu.user + cpu.system) / 1000, failed });
});
process.send!({ ready: true });

/**
 * Child process for "a start that fails half way releases what it opened": starts a gateway in the
 * project `argv[2]` with the settings `argv[3]` (JSON), which must fail, and prints its error. The
 * process must then exit on its own (no process.exit): a database, fold worker, server, watcher or
 * child process left open would keep it alive.
 */
import { join } from "node:path";
import { createGateway, startGatewayProcesses } from "../src/gateway.ts";
import { fixtureTools, TEST_API_KEY } from "./harness.ts";

const dir = process.argv[2]!;
try {
  const gateway = await createGateway({
    cwd: dir,
    env: { ANTHROPIC_API_KEY: TEST_API_KEY },
    configDir: join(dir, "config"),
    tools: fixtureTools(),
    processes: startGatewayProcesses(),
    settings: JSON.parse(process.argv[3] ?? "{}"),
  });
  console.log(JSON.stringify({ started: true }));
  await gateway.shutdown();
} catch (e) {
  console.log(JSON.stringify({ error: e instanceof Error ? e.message : String(e) }));
}

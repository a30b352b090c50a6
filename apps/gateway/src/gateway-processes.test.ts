import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { SandboxPool } from "@openassistant/core/sandbox";
import {
  startFakeAnthropic,
  textTurn,
  toolUseTurn,
  type FakeAnthropic,
} from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { fixtureTools, TEST_API_KEY } from "../test/harness.ts";
import { createGateway, startGatewayProcesses, type Gateway, type GatewayProcesses } from "./gateway.ts";

/** The early processes with a pool that counts its runs and its close (the real pool does the work). */
function observed(processes: GatewayProcesses) {
  const seen = { runs: 0, closed: false };
  const sandbox: SandboxPool = {
    run: (o) => {
      seen.runs++;
      return processes.sandbox.run(o);
    },
    warmUp: (o) => processes.sandbox.warmUp(o),
    close: async () => {
      seen.closed = true;
      await processes.sandbox.close();
    },
  };
  return { seen, processes: { ...processes, sandbox } };
}

let api: FakeAnthropic | undefined;
let gateway: Gateway | undefined;
afterEach(async () => {
  await gateway?.shutdown();
  await api?.close();
  expect(api?.violations ?? []).toEqual([]);
  gateway = api = undefined;
});

async function start(processes: GatewayProcesses, memoryBytes?: number): Promise<Gateway> {
  api = await startFakeAnthropic();
  const dir = makeTempDir("oa-gw-processes-");
  return createGateway({
    cwd: dir,
    env: { ANTHROPIC_API_KEY: TEST_API_KEY },
    configDir: join(dir, "config"),
    tools: fixtureTools(),
    processes,
    settings: { anthropic: { baseURL: api.url }, ...(memoryBytes ? { sandboxLimits: { memoryBytes } } : {}) },
  });
}

async function turnThatRunsCode(g: Gateway): Promise<string> {
  api!.script([
    toolUseTurn({ id: "toolu_1", name: "execute", input: { code: "return await tools.reminders.list({});" } }),
    textTurn("One reminder."),
  ]);
  const outcome = await g.handleMessage({ sessionKey: "t", surface: "terminal", userId: "ann", text: "how many?" });
  expect(outcome.runIds.length).toBe(1);
  return outcome.text;
}

describe("child processes started before the config loads (startGatewayProcesses)", () => {
  test("the gateway runs code in the early pool and checks in the early checker, and closes both", async () => {
    const { seen, processes } = observed(startGatewayProcesses());
    gateway = await start(processes);
    expect(await turnThatRunsCode(gateway)).toContain("One reminder.");
    expect(seen.runs).toBe(1);
    expect(processes.typechecker.stats().checked).toBeGreaterThan(0);
    await gateway.shutdown();
    gateway = undefined;
    expect(seen.closed).toBe(true);
    expect(processes.typechecker.stats().live).toBe(0);
  }, 60_000);

  test("a configured memory size gets its own pool; the early one (default size) is closed", async () => {
    const { seen, processes } = observed(startGatewayProcesses());
    gateway = await start(processes, 32 * 1024 * 1024);
    expect(seen.closed).toBe(true);
    expect(await turnThatRunsCode(gateway)).toContain("One reminder.");
    expect(seen.runs).toBe(0);
  }, 60_000);
});

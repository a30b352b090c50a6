import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { flattenToolTree } from "@openassistant/core/tools";
import { startFakeAnthropic } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { startProjectGateway } from "../test/harness.ts";

// server-everything is a child process: seconds on a busy machine.
setDefaultTimeout(60_000);

const EVERYTHING = Bun.resolveSync(
  "@modelcontextprotocol/server-everything/dist/index.js",
  join(import.meta.dir, "../../../packages/testkit/src"),
);

/** Live processes whose environment carries `marker` (Linux /proc; our own children are readable). */
function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, "latin1").includes(marker)) {
        // A zombie (exited, not yet reaped) is gone for our purposes.
        if (!/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${name}/stat`, "latin1"))) pids.push(Number(name));
      }
    } catch {
      // exited meanwhile, or another user's process
    }
  }
  return pids;
}

describe("gateway shutdown closes MCP connections", () => {
  test("the stdio MCP server's process is gone after shutdown", async () => {
    const marker = `OA_MCP_SHUTDOWN_${crypto.randomUUID().replace(/-/g, "")}`;
    const dir = makeTempDir("oa-mcp-shutdown-");
    mkdirSync(join(dir, ".openassistant"), { recursive: true });
    writeFileSync(
      join(dir, ".openassistant", "config.json"),
      JSON.stringify({
        mcp: {
          servers: {
            everything: {
              command: process.execPath,
              args: [EVERYTHING, "stdio"],
              env: { [marker]: "1" },
              allowProcess: true,
            },
          },
        },
        workspace: { enabled: false },
      }),
    );
    const api = await startFakeAnthropic();
    try {
      const gateway = await startProjectGateway(dir, api.url, { OPENASSISTANT_CONFIG_DIR: join(dir, "config") });
      expect(flattenToolTree(gateway.tools().tree).map((t) => t.path)).toContain("everything.getSum");
      expect(processesWith(marker)).toHaveLength(1);
      await gateway.shutdown();
      expect(processesWith(marker)).toEqual([]);
    } finally {
      await api.close();
    }
  });
});

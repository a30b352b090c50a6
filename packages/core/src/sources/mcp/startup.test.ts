import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { tempProject } from "../../../test/plugin-fixtures.ts";
import { loadTools } from "../../plugins/index.ts";
import { indexToolTree } from "../../tools/flatten.ts";
import { McpConnection } from "./connection.ts";
import { closeMcpConnections } from "./index.ts";

setDefaultTimeout(60_000);
afterAll(() => closeMcpConnections());

const RAW_STDIO = Bun.resolveSync("@openassistant/testkit/mcp/raw-tools-stdio.ts", import.meta.dir);
const dir = makeTempDir("mcp-startup");
const toolsFile = join(dir, "tools.json");
writeFileSync(toolsFile, JSON.stringify([{ name: "ping", inputSchema: { type: "object" } }]));

/** A stdio MCP server that takes `ms` before it starts answering (a package being downloaded). */
function slowServer(ms: number): string {
  const file = join(dir, `slow-${ms}.ts`);
  writeFileSync(
    file,
    `await Bun.sleep(${ms});\nprocess.argv[2] = ${JSON.stringify(toolsFile)};\nawait import(${JSON.stringify(RAW_STDIO)});\n`,
  );
  return file;
}

describe("an MCP server's start-up time is its own, not the plugin factory limit", () => {
  test("a server slower to start than the factory limit loads within its startupTimeoutSeconds", async () => {
    const p = tempProject({
      ".openassistant/config.json": JSON.stringify({
        mcp: {
          servers: {
            slow: {
              command: process.execPath,
              args: [slowServer(1_500)],
              allowProcess: true,
              startupTimeoutSeconds: 30,
            },
          },
        },
      }),
    });
    // The factory limit, here far below the server's start-up.
    const r = await loadTools({ ...p.opts, autoInstall: false, loadTimeoutMs: 300 });
    expect(r.diagnostics.filter((d) => d.level === "error")).toEqual([]);
    expect(indexToolTree(r.tree).has("slow.ping")).toBe(true);
  });

  test("a server that does not answer in time is stopped; the error names the key to raise", async () => {
    const script = join(dir, "silent.ts");
    writeFileSync(script, "setInterval(() => {}, 1000);\n");
    const c = new McpConnection("silent", {
      command: process.execPath,
      args: [script],
      allowProcess: true,
      startupTimeoutSeconds: 0.5,
    });
    const error = (await c.listTools().catch((e) => e)) as Error & { hint?: string };
    expect(error.message).toBe('MCP server "silent" did not start within 0.5 s (no answer to initialize)');
    expect(error.hint).toContain("raise mcp.servers.silent.startupTimeoutSeconds in the config (now 0.5)");
    // Stopped before the error was thrown, not left running beside the next attempt (the process
    // exists from the spawn on, whether or not it got far enough to print anything).
    const children = Bun.spawnSync(["ps", "-o", "args=", "--ppid", String(process.pid)]).stdout.toString();
    expect(children).not.toContain(script);
  });
});

describe("a stdio server that dies during a call", () => {
  test("the call fails with the server's last stderr lines, its env values redacted", async () => {
    const c = new McpConnection("crashy", {
      command: process.execPath,
      args: [Bun.resolveSync("@openassistant/testkit/mcp/crashing-stdio.ts", import.meta.dir)],
      env: { SERVICE_KEY: "svc-key-4f9a8b7c6d5e" },
      allowProcess: true,
    });
    await c.listTools();
    const error = (await c.callTool("crash", {}).catch((e) => e)) as Error;
    expect(error.message).toContain("Connection closed");
    expect(error.message).toContain("panic: out of memory while using [redacted]");
    expect(error.message).not.toContain("svc-key-4f9a8b7c6d5e");
    await c.close();
  });
});

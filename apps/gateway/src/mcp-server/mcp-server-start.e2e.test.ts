/**
 * `openassistant start` in a real process with `mcpServer.enabled`: it prints the MCP endpoint, the
 * official SDK's client (in this test process) lists and calls a required tool, the approval is
 * answered on the terminal's stdin, and the client gets the result.
 */
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startFakeAnthropic } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { MAIN } from "../../test/cli.ts";
import { resultText } from "../../test/mcp-clients.ts";
import { openMcpTokens } from "./tokens.ts";

test("a started gateway serves its tools over MCP; a required call waits for the terminal's approval", async () => {
  const dir = makeTempDir("oa-mcp-start-");
  mkdirSync(join(dir, ".openassistant", "tools"), { recursive: true });
  writeFileSync(
    join(dir, ".openassistant", "tools", "remind.ts"),
    `import { defineTool, z } from "@openassistant/sdk";
export default defineTool({
  description: "Create a reminder",
  approval: "required",
  args: z.object({ text: z.string() }),
  run: async ({ text }) => ({ id: "rem_1", text }),
});
`,
  );
  writeFileSync(join(dir, ".openassistant", "config.json"), JSON.stringify({ mcpServer: { enabled: true } }));
  const token = openMcpTokens(join(dir, ".openassistant", "data")).create("editor");
  const api = await startFakeAnthropic();
  const proc = Bun.spawn(["bun", MAIN, "start"], {
    cwd: dir,
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME!,
      OPENASSISTANT_CONFIG_DIR: join(dir, "config"),
      ANTHROPIC_API_KEY: "sk-ant-api03-start-test-000000000000",
      OPENASSISTANT_ANTHROPIC_BASE_URL: api.url,
    },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  // A bound for a hang, not a speed check: a whole gateway's start on a busy 2-core machine.
  const killer = setTimeout(() => proc.kill("SIGKILL"), 50_000);
  let out = "";
  const reader = proc.stdout.getReader();
  const waitFor = async (re: RegExp) => {
    while (!re.test(out)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`stdout ended before ${re}:\n${out}`);
      out += new TextDecoder().decode(value);
    }
  };
  const client = new Client({ name: "editor", version: "1.0.0" });
  try {
    await waitFor(/Ready in \d+ ms/);
    const url = /MCP server: (http:\/\/127\.0\.0\.1:\d+\/mcp) /.exec(out)?.[1];
    expect(url).toBeDefined();
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url!), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    // Every tool by default: the project's and the gateway's own schedules and workspace tools (whose writes always ask a person).
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
      "remind",
      "schedules.cancel",
      "schedules.create",
      "schedules.list",
      "workspace.listTools",
      "workspace.readTool",
      "workspace.removeTool",
      "workspace.writeTool",
    ]);
    const call = client.callTool({ name: "remind", arguments: { text: "stretch" } });
    await waitFor(/deny with a reason/);
    expect(out).toContain('MCP client "editor" calls tools.remind');
    proc.stdin.write("a\n");
    expect(JSON.parse(resultText(await call))).toEqual({ id: "rem_1", text: "stretch" });
  } finally {
    await client.close().catch(() => undefined);
    proc.stdin.end();
    await proc.exited;
    clearTimeout(killer);
    await api.close();
  }
  expect(proc.exitCode).toBe(0);
}, 60_000);

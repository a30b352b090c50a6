import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TestMcpHttpServer } from "@openassistant/testkit/mcp/http-server.ts";
import { startFakeAnthropic, type FakeAnthropic } from "@openassistant/testkit/anthropic/fake-server.ts";
import { startRawToolsMcpServer } from "@openassistant/testkit/mcp/raw-tools-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { cli } from "../../test/cli.ts";

// Each command starts a stdio MCP server or connects to one: seconds on a busy machine.
setDefaultTimeout(90_000);

const EVERYTHING = Bun.resolveSync(
  "@modelcontextprotocol/server-everything/dist/index.js",
  join(import.meta.dir, "..", "..", "..", "..", "packages", "testkit", "src"),
);
const KEY = { ANTHROPIC_API_KEY: "sk-ant-api03-mcp-commands-test-000000" };
/** Well past any command's own work: a command still running then is one that hangs. */
const HANG = 60_000;

let http: TestMcpHttpServer;
// doctor contacts the endpoint in effect: the fake Anthropic here, never the real one.
let api: FakeAnthropic;
const env = () => ({ ...KEY, OPENASSISTANT_ANTHROPIC_BASE_URL: api.url });
beforeAll(async () => {
  api = await startFakeAnthropic();
  http = await startRawToolsMcpServer([
    {
      name: "lookup-user",
      description: "Find a user",
      inputSchema: { type: "object", properties: { email: { type: "string" } }, required: ["email"] },
    },
  ]);
});
afterAll(async () => {
  http.close();
  await api.close();
});

function project(servers: Record<string, unknown>): string {
  const dir = makeTempDir("oa-mcp-cli-");
  mkdirSync(join(dir, ".openassistant"), { recursive: true });
  writeFileSync(join(dir, ".openassistant", "config.json"), JSON.stringify({ mcp: { servers } }));
  return dir;
}

const SERVERS = () => ({
  everything: { command: process.execPath, args: [EVERYTHING, "stdio"], allowProcess: true },
  users: { url: http.url },
});

describe("commands exit when done with MCP servers configured, stdio and HTTP (real subprocesses)", () => {
  test("plugins list lists both servers' tools and exits 0", async () => {
    const r = await cli(["plugins", "list"], { cwd: project(SERVERS()), env: env(), killAfterMs: HANG });
    expect(r.killed).toBe(false);
    expect(r.stdout).toContain("tools.everything.getSum");
    expect(r.stdout).toContain("tools.users.lookupUser");
    expect(r.code).toBe(0);
  });

  test("plugins list --json exits too", async () => {
    const r = await cli(["plugins", "list", "--json"], { cwd: project(SERVERS()), env: env(), killAfterMs: HANG });
    expect(r.killed).toBe(false);
    expect(JSON.parse(r.stdout).entries.map((e: { id: string }) => e.id)).toEqual(
      expect.arrayContaining(["everything", "users"]),
    );
    expect(r.code).toBe(0);
  });

  test("doctor loads both servers, typechecks their declarations and exits 0", async () => {
    const r = await cli(["doctor"], { cwd: project(SERVERS()), env: env(), killAfterMs: HANG });
    expect(r.killed).toBe(false);
    expect(r.stdout).toMatch(/✓ tools: \d+ loaded/);
    expect(r.stdout).toContain("✓ typecheck: the tool declarations compile");
    expect(r.code).toBe(0);
  });

  test("a stdio server that dies at start: the command says why (its stderr, redacted) and exits", async () => {
    const script = join(makeTempDir("oa-mcp-dies-"), "dies.ts");
    writeFileSync(
      script,
      'console.error(`starting with key ${process.env.SERVICE_KEY}`);\nconsole.error("fatal: no database at /var/db");\nprocess.exit(3);\n',
    );
    const dir = project({
      dies: {
        command: process.execPath,
        args: [script],
        env: { SERVICE_KEY: "svc-key-4f9a8b7c6d5e" },
        allowProcess: true,
      },
    });
    const r = await cli(["plugins", "list"], { cwd: dir, env: env(), killAfterMs: HANG });
    expect(r.killed).toBe(false);
    const out = r.stdout + r.stderr;
    expect(out).toContain('could not connect to MCP server "dies"');
    expect(out).toContain("fatal: no database at /var/db");
    expect(out).toContain("starting with key [redacted]");
    expect(out).not.toContain("svc-key-4f9a8b7c6d5e");
    expect(r.code).toBe(1);
  });

  test("a stdio server that never answers: the start-up limit names the key to raise, and the command exits", async () => {
    const script = join(makeTempDir("oa-mcp-silent-"), "silent.ts");
    writeFileSync(script, "setInterval(() => {}, 1000);\n");
    const dir = project({
      silent: { command: process.execPath, args: [script], allowProcess: true, startupTimeoutSeconds: 1 },
    });
    const r = await cli(["plugins", "list"], { cwd: dir, env: env(), killAfterMs: HANG });
    expect(r.killed).toBe(false);
    const out = r.stdout + r.stderr;
    expect(out).toContain('MCP server "silent" did not start within 1 s');
    expect(out).toContain("mcp.servers.silent.startupTimeoutSeconds");
    expect(r.code).toBe(1);
  });
});

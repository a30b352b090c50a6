import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "@openassistant/sdk";
import { McpOAuthStore } from "@openassistant/core/testing";
import { startOAuthMcpServer } from "@openassistant/testkit/mcp/oauth-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { cli, collect, MAIN } from "../../test/cli.ts";

setDefaultTimeout(60_000);

const server = await startOAuthMcpServer((s) => {
  s.registerTool("ping", { description: "Ping", inputSchema: { n: z.number() } }, async ({ n }) => ({
    content: [{ type: "text", text: `pong ${n}` }],
  }));
});
afterAll(() => server.close());

function project(servers: unknown): string {
  const dir = makeTempDir("oa-mcp-login-");
  mkdirSync(join(dir, ".openassistant"), { recursive: true });
  writeFileSync(join(dir, ".openassistant", "config.json"), JSON.stringify({ mcp: { servers } }));
  return dir;
}

describe("openassistant mcp login <name> (real subprocess)", () => {
  test("prints the authorization URL, takes the redirect on 127.0.0.1, saves the tokens 0600, prints no token", async () => {
    const dir = project({ remote: { url: server.url, oauth: { scopes: ["mcp:tools"] } } });
    const proc = Bun.spawn(["bun", MAIN, "mcp", "login", "remote"], {
      cwd: dir,
      env: { PATH: process.env.PATH!, HOME: dir, NO_COLOR: "1", OPENASSISTANT_CONFIG_DIR: join(dir, "config") },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const out = collect(proc.stdout);
    const err = collect(proc.stderr);
    await out.waitFor(/http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+/, 20_000);
    const url = out.text.match(/http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+/)![0];
    // The test is the browser: the fake approves at once and redirects to the CLI's loopback listener.
    const approved = await fetch(url, { redirect: "manual" });
    expect(approved.status).toBe(302);
    const page = await fetch(approved.headers.get("location")!);
    expect(await page.text()).toContain('logged in to MCP server "remote"');
    expect(await proc.exited).toBe(0);
    await Promise.all([out.pump, err.pump]);
    expect(err.text).toBe("");
    expect(out.text).toContain('Logged in to MCP server "remote" (scope mcp:tools; access token valid for 3600 s');
    expect(out.text).toContain("1 tool(s)");
    const file = join(dir, "config", "mcp-oauth.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(new McpOAuthStore(join(dir, "config")).get("remote", server.url)?.tokens?.refresh_token).toBeDefined();
    for (const t of server.issued) expect(out.text).not.toContain(t);
    expect(readFileSync(file, "utf8")).toContain(server.issued.at(-2)!); // the access token is in the file only
  });

  test("an unknown server or one without oauth: one error line saying what to do", async () => {
    const dir = project({ plain: { url: server.url } });
    const unknown = await cli(["mcp", "login", "ghost"], { cwd: dir });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toBe('error: no MCP server "ghost" in mcp.servers (configured: plain)');
    const plain = await cli(["mcp", "login", "plain"], { cwd: dir });
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain('mcp.servers.plain does not use OAuth; add "oauth": {}');
  });
});

import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { openMcpTokens } from "../mcp-server/tokens.ts";
import { cli } from "../../test/cli.ts";

setDefaultTimeout(60_000);

function project(config: unknown): string {
  const dir = makeTempDir("oa-mcp-server-cli-");
  mkdirSync(join(dir, ".openassistant"), { recursive: true });
  writeFileSync(join(dir, ".openassistant", "config.json"), JSON.stringify(config));
  return dir;
}

describe("openassistant mcp-server token (real subprocess)", () => {
  test("create prints the token once (stdout) and keeps only its hash; list names the client; revoke ends it", async () => {
    const dir = project({ mcpServer: { enabled: true } });
    const created = await cli(["mcp-server", "token", "create", "editor", "--tools", "notes.*, mail.send"], {
      cwd: dir,
    });
    expect(created.code).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^oamcp_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).toContain('Token for MCP client "editor"');
    expect(created.stderr).not.toContain("The MCP server is off");
    const data = join(dir, ".openassistant", "data");
    expect(readFileSync(join(data, "mcp-server-tokens.json"), "utf8")).not.toContain(token);
    expect(openMcpTokens(data).clientFor(`Bearer ${token}`)).toMatchObject({
      name: "editor",
      tools: ["notes.*", "mail.send"],
    });

    const listed = await cli(["mcp-server", "token", "list"], { cwd: dir });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^editor\tnotes\.\*,mail\.send\tcreated \d{4}-/);
    expect(listed.stdout).not.toContain(token);

    const revoked = await cli(["mcp-server", "token", "revoke", "editor"], { cwd: dir });
    expect(revoked.code).toBe(0);
    expect(openMcpTokens(data).clientFor(`Bearer ${token}`)).toBeUndefined();
    const again = await cli(["mcp-server", "token", "revoke", "editor"], { cwd: dir });
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('no MCP client named "editor" has a token');
  });

  test("with the server off, create says how to turn it on; a bad name is refused with the rule", async () => {
    const dir = project({});
    const created = await cli(["mcp-server", "token", "create", "editor"], { cwd: dir });
    expect(created.code).toBe(0);
    expect(created.stderr).toContain('The MCP server is off: set "mcpServer": { "enabled": true }');
    const bad = await cli(["mcp-server", "token", "create", "Bad Name"], { cwd: dir });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('MCP client name "Bad Name" is not allowed');
    expect(bad.stdout).toBe("");
  });
});

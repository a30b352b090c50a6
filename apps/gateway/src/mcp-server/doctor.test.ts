import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { MCP_TEST_SETTINGS } from "../../test/mcp-clients.ts";
import { mcpServerChecks } from "./doctor.ts";
import { openMcpTokens } from "./tokens.ts";

describe("doctor's MCP server lines", () => {
  test("off: no line; on without a client: a warning saying how to make a token; with one: its name", () => {
    const dataDir = makeTempDir("oa-mcp-doctor-");
    expect(mcpServerChecks({ dataDir })).toEqual([]);
    const on = { dataDir, mcpServer: { ...MCP_TEST_SETTINGS, port: 8788 } };
    expect(mcpServerChecks(on)).toEqual([
      {
        name: "mcp server",
        level: "warn",
        detail:
          "enabled, but no MCP client has a token, so none can connect: openassistant mcp-server token create <name>",
      },
    ]);
    openMcpTokens(dataDir).create("editor");
    expect(mcpServerChecks(on)).toEqual([
      { name: "mcp server", level: "ok", detail: "enabled on 127.0.0.1:8788; clients: editor" },
    ]);
  });

  test("a damaged token file fails, naming it; a non-loopback host is a warning", () => {
    const dataDir = makeTempDir("oa-mcp-doctor-");
    writeFileSync(join(dataDir, "mcp-server-tokens.json"), "[");
    const [check] = mcpServerChecks({ dataDir, mcpServer: MCP_TEST_SETTINGS });
    expect(check).toMatchObject({ name: "mcp server", level: "fail" });
    expect(check!.detail).toContain(join(dataDir, "mcp-server-tokens.json"));
    const fresh = makeTempDir("oa-mcp-doctor-");
    openMcpTokens(fresh).create("editor");
    const checks = mcpServerChecks({ dataDir: fresh, mcpServer: { ...MCP_TEST_SETTINGS, host: "0.0.0.0" } });
    expect(checks.map((c) => c.level)).toEqual(["ok", "warn"]);
    expect(checks[1]!.detail).toContain("mcpServer.host is 0.0.0.0: other machines can reach the MCP endpoint");
  });
});

import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { MCP_TEST_SETTINGS, mcpTestbed, postInSession } from "../../test/mcp-clients.ts";
import { startHarness } from "../../test/harness.ts";
import { loadGatewaySettings } from "../config-adapter.ts";

// Who may reach the gateway's MCP server, and how much: tokens, sessions, sizes, origins, off by default.

const { start, startPlain, connect } = mcpTestbed();
const MCP = MCP_TEST_SETTINGS;

describe("who may reach the MCP server", () => {
  test("a missing or wrong token is refused with 401, before any session exists", async () => {
    const { tokens, url } = await start();
    tokens.create("editor");
    await expect(connect(url, undefined)).rejects.toThrow(/wrong or revoked bearer token/);
    await expect(connect(url, `oamcp_${"A".repeat(43)}`)).rejects.toThrow(/wrong or revoked bearer token/);
    const raw = await fetch(url, { method: "POST", headers: { authorization: "Bearer oa_http_token" }, body: "{}" });
    expect(raw.status).toBe(401);
    expect(raw.headers.get("www-authenticate")).toBe('Bearer realm="openassistant-mcp"');
    expect(await raw.text()).toContain("openassistant mcp-server token create");
  });

  test("a revoked token stops working on its next request, without a restart", async () => {
    const { tokens, url } = await start();
    const client = await connect(url, tokens.create("editor"));
    expect((await client.listTools()).tools.length).toBe(3);
    expect(tokens.revoke("editor")).toBe(true);
    await expect(client.listTools()).rejects.toThrow(/wrong or revoked bearer token/);
  });

  test("revoking a token while its call waits for approval stops the call: denied, and nothing runs", async () => {
    const { h, tokens, url } = await start();
    const client = await connect(url, tokens.create("editor"));
    const asked = new Promise<{ callId: string }>((resolve) =>
      h.gateway.events.subscribe((e) => e.type === "approval.requested" && resolve(e.request)),
    );
    const settled = new Promise<{ status: string }>((resolve) =>
      h.gateway.events.subscribe((e) => e.type === "call.settled" && resolve(e.outcome)),
    );
    const call = client.callTool({ name: "reminders.create", arguments: { text: "late", at: "1" } });
    call.catch(() => undefined); // its stream ends with the session
    const { callId } = await asked;
    tokens.revoke("editor");
    // Any request the server gets (here: someone without a token) ends the revoked client's sessions.
    expect((await fetch(url, { method: "POST", body: "{}" })).status).toBe(401);
    expect(await settled).toMatchObject({ status: "denied" });
    expect((await h.gateway.receipts.query({ callId })).map((r) => r.phase)).toEqual(["requested", "denied"]);
    expect(h.calls).toEqual([]);
  });

  test("a session belongs to the client that opened it: another client's token gets 404 for it", async () => {
    const { tokens, url } = await start();
    const client = await connect(url, tokens.create("editor"));
    const other = tokens.create("intruder");
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const res = await postInSession(
      url,
      other,
      sessionId,
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    );
    expect(res.status).toBe(404);
  });

  test("a body over mcpServer.maxRequestBytes is refused with 413; a page on another origin with 403", async () => {
    const { tokens, url } = await start();
    const token = tokens.create("editor");
    const big = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { pad: "x".repeat(70_000) } }),
    });
    expect(big.status).toBe(413);
    expect(await big.text()).toContain("mcpServer.maxRequestBytes (65536 bytes)");
    // Inside a session the transport reads with the same bound.
    const client = await connect(url, token);
    const inSession = await postInSession(
      url,
      token,
      (client.transport as StreamableHTTPClientTransport).sessionId!,
      JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list", params: { pad: "x".repeat(70_000) } }),
    );
    expect(inSession.status).toBe(413);
    const page = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, origin: "https://evil.example", "content-type": "application/json" },
      body: "{}",
    });
    expect(page.status).toBe(403);
  });

  test("off by default: a config without mcpServer.enabled, or with it false, starts no MCP server", async () => {
    for (const config of [{}, { mcpServer: { port: 7777, enabled: false } }]) {
      const dir = makeTempDir("oa-mcp-off-");
      mkdirSync(join(dir, ".openassistant"), { recursive: true });
      writeFileSync(join(dir, ".openassistant", "config.json"), JSON.stringify(config));
      const { settings } = await loadGatewaySettings(dir, {}, { tools: false });
      expect(settings.mcpServer).toBeUndefined();
    }
    expect((await startPlain()).gateway.mcpServer).toBeUndefined();
  });

  test("a port in use stops the start with an error naming mcpServer.port; the port's owner keeps it", async () => {
    const owner = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("mine") });
    try {
      await expect(startHarness({ settings: { mcpServer: { ...MCP, port: owner.port! } } })).rejects.toThrow(
        `mcpServer: cannot listen on 127.0.0.1:${owner.port}`,
      );
      expect(await (await fetch(`http://127.0.0.1:${owner.port}/`)).text()).toBe("mine");
    } finally {
      await owner.stop(true);
    }
  });

  test("a session ended by its client (DELETE) is gone: its id gets 404", async () => {
    const { tokens, url } = await start();
    const token = tokens.create("editor");
    const client = await connect(url, token);
    const transport = client.transport as StreamableHTTPClientTransport;
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    const res = await postInSession(
      url,
      token,
      sessionId,
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    );
    expect(res.status).toBe(404);
  });

  test("at mcpServer.maxSessions a new session takes the place of the least recently used idle one", async () => {
    const { tokens, url } = await start({ maxSessions: 2 });
    const token = tokens.create("editor");
    const first = await connect(url, token);
    const second = await connect(url, token);
    await second.listTools(); // the first is now the least recently used
    const third = await connect(url, token);
    expect((await third.listTools()).tools.length).toBe(3);
    expect((await second.listTools()).tools.length).toBe(3);
    await expect(first.listTools()).rejects.toThrow(/session not found/);
  });

  test("when every session has a call running, a new one is refused (503) and the running call is untouched", async () => {
    const { h, tokens, url } = await start({ maxSessions: 1 });
    const token = tokens.create("editor");
    const busy = await connect(url, token);
    const asked = new Promise<{ callId: string }>((resolve) =>
      h.gateway.events.subscribe((e) => e.type === "approval.requested" && resolve(e.request)),
    );
    const call = busy.callTool({ name: "reminders.create", arguments: { text: "busy", at: "1" } });
    const { callId } = await asked;
    await expect(connect(url, token)).rejects.toThrow(/has a call running; try again when one ends/);
    await h.gateway.approvals.decide(callId, { decision: "approved", by: "operator-1" });
    expect((await call).isError).toBeFalsy();
    expect(h.calls).toEqual(["reminders.create:busy"]);
  });
});

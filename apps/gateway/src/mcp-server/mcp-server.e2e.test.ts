import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { startHarness, type Harness } from "../../test/harness.ts";
import { loadGatewaySettings } from "../config-adapter.ts";
import type { McpServerSettings } from "../settings.ts";
import { openMcpTokens } from "./tokens.ts";

// The gateway as an MCP server, end to end: the official SDK's client over streamable HTTP, the
// real runner (sandbox child, receipts in SQLite), approvals decided through the broker (the
// console's and Discord's decisions land there too).

const MCP: McpServerSettings = {
  port: 0,
  host: "127.0.0.1",
  tools: ["**"],
  maxRequestBytes: 65_536,
  maxSessions: 4,
};

let h: Harness | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  await h?.close();
  h = undefined;
});

async function start(settings: Partial<McpServerSettings> = {}) {
  h = await startHarness({ settings: { mcpServer: { ...MCP, ...settings } } });
  const tokens = openMcpTokens(join(h.dir, ".openassistant", "data"));
  return { h, tokens, url: h.gateway.mcpServer!.url };
}

async function connect(url: string, token: string | undefined): Promise<Client> {
  const client = new Client({ name: "test-editor", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
  });
  clients.push(client);
  await client.connect(transport);
  return client;
}

/** The text of a tool result's content. */
const text = (result: unknown) =>
  (result as { content: Array<{ type: string; text: string }> }).content.map((c) => c.text).join("");

describe("the gateway's tools over MCP", () => {
  test("an MCP client lists the tools with input schemas from their zod schemas and calls one: receipts name the client", async () => {
    const { h, tokens, url } = await start();
    const client = await connect(url, tokens.create("editor"));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["mail.send", "reminders.create", "reminders.list"]);
    const create = tools.find((t) => t.name === "reminders.create")!;
    expect(create.inputSchema).toMatchObject({
      type: "object",
      properties: { text: { type: "string" }, at: { type: "string" } },
      required: ["text", "at"],
    });
    expect(create.description).toContain("Create a reminder at a time");
    expect(create.description).toContain("waits for an operator's approval");

    const result = await client.callTool({ name: "reminders.list", arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(text(result))).toEqual([{ id: "rem_0", text: "water plants" }]);
    expect(h.calls).toEqual(["reminders.list"]);
    const receipts = await h.gateway.receipts.query({ tool: "reminders.list" });
    expect(receipts.map((r) => r.phase)).toEqual(["requested", "started", "succeeded"]);
    expect(receipts[0]!.sessionId).toMatch(/^mcp:editor:[0-9a-f-]{36}$/);
  });

  test("a required tool waits for an operator: the client gets the result once approved", async () => {
    const { h, tokens, url } = await start();
    const client = await connect(url, tokens.create("editor"));
    const asked = new Promise<{ callId: string; requestedBy?: string; code?: string }>((resolve) =>
      h.gateway.events.subscribe((e) => e.type === "approval.requested" && resolve(e.request)),
    );
    const call = client.callTool({ name: "reminders.create", arguments: { text: "call mom", at: "9:00" } });
    const request = await asked;
    expect(request.requestedBy).toBe("mcp:editor");
    expect(request.code).toContain('MCP client "editor" calls tools.reminders.create');
    expect(h.calls).toEqual([]); // nothing ran before the decision
    await h.gateway.approvals.decide(request.callId, { decision: "approved", by: "operator-1" });
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(text(result))).toEqual({ id: "rem_1", text: "call mom", at: "9:00" });
    expect(h.calls).toEqual(["reminders.create:call mom"]);
    const receipts = await h.gateway.receipts.query({ callId: request.callId });
    expect(receipts.map((r) => r.phase)).toEqual(["requested", "approved", "started", "succeeded"]);
    expect(receipts[1]!.decidedBy).toBe("operator-1");
    expect(receipts[0]!.sessionId).toMatch(/^mcp:editor:/);
  });

  test("a denied call is a tool error saying who denied it and why; a failing tool's error crosses too", async () => {
    const { h, tokens, url } = await start();
    const client = await connect(url, tokens.create("editor"));
    h.gateway.events.subscribe((e) => {
      if (e.type === "approval.requested")
        void h.gateway.approvals.decide(e.request.callId, { decision: "denied", by: "operator-1", reason: "not now" });
    });
    const denied = await client.callTool({ name: "reminders.create", arguments: { text: "x", at: "1" } });
    expect(denied.isError).toBe(true);
    expect(text(denied)).toBe("reminders.create was denied by operator-1: not now");
    const failed = await client.callTool({ name: "mail.send", arguments: { to: "a@b.c", body: "hi" } });
    expect(failed.isError).toBe(true);
    expect(text(failed)).toContain("mail.send failed:");
    expect(text(failed)).toContain("SMTP server refused the connection");
    expect(h.calls).toEqual(["mail.send"]);
  });

  test("a client that cancels a call waiting for approval leaves it denied, and nothing runs", async () => {
    const { h, tokens, url } = await start();
    const client = await connect(url, tokens.create("editor"));
    const asked = new Promise<{ callId: string }>((resolve) =>
      h.gateway.events.subscribe((e) => e.type === "approval.requested" && resolve(e.request)),
    );
    const settled = new Promise<{ status: string; decidedBy?: string }>((resolve) =>
      h.gateway.events.subscribe((e) => e.type === "call.settled" && resolve(e.outcome)),
    );
    const cancel = new AbortController();
    const call = client.callTool({ name: "reminders.create", arguments: { text: "x", at: "1" } }, undefined, {
      signal: cancel.signal,
    });
    const { callId } = await asked;
    cancel.abort("the editor gave up");
    await expect(call).rejects.toThrow();
    // The call's outcome is announced once its receipt is staged (SSE and the console see MCP calls too).
    expect(await settled).toMatchObject({ status: "denied" });
    const receipts = await h.gateway.receipts.query({ callId });
    expect(receipts.map((r) => r.phase)).toEqual(["requested", "denied"]);
    expect(h.calls).toEqual([]);
  });

  test("input is validated against the tool's schema before anything runs", async () => {
    const { h, tokens, url } = await start();
    const client = await connect(url, tokens.create("editor"));
    const result = await client.callTool({ name: "reminders.create", arguments: { text: 42 } });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("reminders.create failed:");
    expect(text(result)).toContain("text");
    expect(h.calls).toEqual([]);
  });

  test("a client's token scopes its tools: others are neither listed nor callable", async () => {
    const { h, tokens, url } = await start({ tools: ["reminders.*", "mail.*"] });
    const client = await connect(url, tokens.create("reader", ["reminders.list"]));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["reminders.list"]);
    await expect(client.callTool({ name: "mail.send", arguments: { to: "a", body: "b" } })).rejects.toThrow(
      /unknown tool "mail.send"/,
    );
    expect(h.calls).toEqual([]);
  });
});

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
    const res = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${other}`,
        "mcp-session-id": sessionId,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
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
    const inSession = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "mcp-session-id": (client.transport as StreamableHTTPClientTransport).sessionId!,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list", params: { pad: "x".repeat(70_000) } }),
    });
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
    h = await startHarness();
    expect(h.gateway.mcpServer).toBeUndefined();
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
    const res = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "mcp-session-id": sessionId,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
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

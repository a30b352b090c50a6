/**
 * Test support for the MCP server's end-to-end tests: a harness gateway with `mcpServer` on, its
 * client tokens, and the official SDK's client connected over streamable HTTP (closed after each test).
 */
import { afterEach } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ToolTree } from "@openassistant/sdk";
import { openMcpTokens } from "../src/mcp-server/tokens.ts";
import type { McpServerSettings } from "../src/settings.ts";
import { startHarness, type Harness } from "./harness.ts";

export const MCP_TEST_SETTINGS: McpServerSettings = {
  port: 0,
  host: "127.0.0.1",
  tools: ["**"],
  maxRequestBytes: 65_536,
  maxSessions: 4,
};

/** Harness gateways and MCP clients of one test file; each test's are closed after it. */
export function mcpTestbed() {
  let h: Harness | undefined;
  const clients: Client[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close().catch(() => undefined);
    await h?.close();
    h = undefined;
  });
  return {
    /** A harness gateway serving over MCP; `tools` (default: the harness's fixture tools). */
    async start(settings: Partial<McpServerSettings> = {}, tools?: ToolTree) {
      h = await startHarness({
        settings: { mcpServer: { ...MCP_TEST_SETTINGS, ...settings } },
        ...(tools ? { tools } : {}),
      });
      const tokens = openMcpTokens(join(h.dir, ".openassistant", "data"));
      return { h, tokens, url: h.gateway.mcpServer!.url };
    },
    /** A plain harness (no MCP server), closed after the test like the others. */
    async startPlain(): Promise<Harness> {
      h = await startHarness();
      return h;
    },
    async connect(url: string, token: string | undefined): Promise<Client> {
      const client = new Client({ name: "test-editor", version: "1.0.0" });
      const transport = new StreamableHTTPClientTransport(new URL(url), {
        requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
      });
      clients.push(client);
      await client.connect(transport);
      return client;
    },
  };
}

/** The text of a tool result's content. */
export const resultText = (result: unknown): string =>
  (result as { content: Array<{ type: string; text: string }> }).content.map((c) => c.text).join("");

/** A POST on an MCP session with a raw body (what a misbehaving client could send). */
export function postInSession(url: string, token: string, sessionId: string, body: string): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "mcp-session-id": sessionId,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body,
  });
}

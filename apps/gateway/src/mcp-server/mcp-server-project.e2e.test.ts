/**
 * The MCP server on a real project (its config.json read as `start` reads it, its tools and hook
 * plugin dropped in .openassistant/tools/): the plugins' `tool.before` / `tool.after` hooks see
 * and govern an MCP client's calls like a model's (docs/hooks.md), and a secret never crosses.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type FakeAnthropic, startFakeAnthropic } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { startProjectGateway } from "../../test/harness.ts";
import type { Gateway } from "../gateway.ts";
import { openMcpTokens } from "./tokens.ts";

setDefaultTimeout(30_000);

const SECRET = "notes-api-key-9f8e7d6c5b4a3210";

/** Denies "forbidden", asks a person for "ask", and tells in the result who asked (what hooks see of the MCP client). */
const GUARD = `
import { definePlugin } from "@openassistant/sdk";
export default definePlugin({
  hooks: () => ({
    tool: {
      before: (call, ctx) => {
        if (call.input.text === "forbidden") return { deny: "no forbidden notes (guard plugin)" };
        if (call.input.text === "ask") return { requireApproval: { title: "A note to check", summary: "asked by " + ctx.requestedBy?.userId } };
        return undefined;
      },
      after: (call, outcome, ctx) =>
        outcome.status === "succeeded" ? { result: { ...outcome.result, seenBy: ctx.requestedBy?.userId } } : undefined,
    },
  }),
});
`;

/** Its result carries the config's secret, which must never reach the client. */
const NOTES = `
import { defineTool, z } from "@openassistant/sdk";
export const add = defineTool({
  description: "Add a note", approval: "auto", args: z.object({ text: z.string() }),
  run: async ({ text }) => ({ added: text, key: process.env.NOTES_KEY }),
});
`;

/** A tool outside mcpServer.tools: MCP clients neither see nor call it. */
const ADMIN = `
import { defineTool, z } from "@openassistant/sdk";
export const wipe = defineTool({
  description: "Wipe everything", approval: "auto", args: z.object({}), run: async () => "wiped",
});
`;

let api: FakeAnthropic;
let gateway: Gateway;
let client: Client;

beforeAll(async () => {
  api = await startFakeAnthropic();
  const dir = makeTempDir("oa-mcp-server-");
  const ws = join(dir, ".openassistant");
  mkdirSync(join(ws, "tools"), { recursive: true });
  writeFileSync(join(ws, "tools", "guard.ts"), GUARD);
  writeFileSync(join(ws, "tools", "notes.ts"), NOTES);
  writeFileSync(join(ws, "tools", "admin.ts"), ADMIN);
  writeFileSync(
    join(ws, "config.json"),
    JSON.stringify({
      mcpServer: { enabled: true, tools: ["notes.*"] },
      // A config value from the environment is a secret: redacted wherever it would leave.
      config: { notes: { key: "${NOTES_KEY}" } },
    }),
  );
  process.env.NOTES_KEY = SECRET;
  gateway = await startProjectGateway(dir, api.url, { NOTES_KEY: SECRET });
  const token = openMcpTokens(join(ws, "data")).create("editor");
  client = new Client({ name: "editor", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(gateway.mcpServer!.url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
});

afterAll(async () => {
  await client?.close().catch(() => undefined);
  await gateway?.shutdown();
  await api?.close();
  delete process.env.NOTES_KEY;
});

/** The text of a tool result's content. */
const text = (result: unknown) =>
  (result as { content: Array<{ type: string; text: string }> }).content.map((c) => c.text).join("");

describe("the MCP server on a project", () => {
  test("config mcpServer.enabled serves the tools mcpServer.tools names, on 127.0.0.1", async () => {
    expect(gateway.settings.mcpServer).toMatchObject({ host: "127.0.0.1", tools: ["notes.*"] });
    expect(gateway.mcpServer!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(gateway.tools().tree).toHaveProperty("admin.wipe");
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["notes.add"]);
    await expect(client.callTool({ name: "admin.wipe", arguments: {} })).rejects.toThrow(/unknown tool "admin.wipe"/);
  });

  test("tool.after sees the MCP client as who asked; the config's secret in the result is redacted", async () => {
    const result = await client.callTool({ name: "notes.add", arguments: { text: "milk" } });
    expect(result.isError).toBeFalsy();
    const value = JSON.parse(text(result));
    expect(value.added).toBe("milk");
    expect(value.seenBy).toBe("mcp:editor");
    // The tool returned the key; what crossed is the redactor's mark in its place.
    expect(typeof value.key).toBe("string");
    expect(text(result)).not.toContain(SECRET);
    const receipts = await gateway.receipts.query({ tool: "notes.add" });
    expect(JSON.stringify(receipts)).not.toContain(SECRET);
  });

  test("tool.before's deny settles the call: the client gets the plugin's reason", async () => {
    const result = await client.callTool({ name: "notes.add", arguments: { text: "forbidden" } });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("no forbidden notes (guard plugin)");
  });

  test("tool.before's requireApproval makes an auto tool wait for a person", async () => {
    const asked = new Promise<{ callId: string; summary?: string; description: string }>((resolve) =>
      gateway.events.subscribe((e) => e.type === "approval.requested" && resolve(e.request)),
    );
    const call = client.callTool({ name: "notes.add", arguments: { text: "ask" } });
    const request = await asked;
    expect(`${request.description} ${request.summary ?? ""}`).toContain("asked by mcp:editor");
    await gateway.approvals.decide(request.callId, { decision: "approved", by: "operator-1" });
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(text(result)).added).toBe("ask");
  });
});

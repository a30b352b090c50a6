import { describe, expect, test } from "bun:test";
import { defineTool, z } from "@openassistant/sdk";
import { mcpTestbed, resultText as text } from "../../test/mcp-clients.ts";

// The gateway as an MCP server, end to end: the official SDK's client over streamable HTTP, the
// real runner (sandbox child, receipts in SQLite), approvals decided through the broker (the
// console's and Discord's decisions land there too; mcp-server-discord.e2e.test.ts clicks a card).

const { start, connect } = mcpTestbed();

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

  test("a secret the gateway knows never crosses: not in a description, a result or an error", async () => {
    const secret = "sk-live-0123456789abcdefSECRET";
    const { h, tokens, url } = await start(
      {},
      {
        leaky: {
          echo: defineTool({
            description: `Echo (uses key ${secret})`,
            approval: "auto",
            args: z.object({ fail: z.boolean() }),
            run: async ({ fail }) => {
              if (fail) throw new Error(`upstream refused key ${secret}`);
              return { key: secret };
            },
          }),
        },
      },
    );
    h.gateway.secrets.add("config-field", [secret]);
    const token = tokens.create("editor");
    const client = await connect(url, token);
    // The token the client presented is a secret from then on (redacted wherever it would appear).
    expect(h.gateway.redact(`token ${token}`)).not.toContain(token);
    const listed = JSON.stringify(await client.listTools());
    expect(listed).toContain("Echo (uses key");
    expect(listed).not.toContain(secret);
    const ok = await client.callTool({ name: "leaky.echo", arguments: { fail: false } });
    const failed = await client.callTool({ name: "leaky.echo", arguments: { fail: true } });
    expect(failed.isError).toBe(true);
    expect(text(failed)).toContain("upstream refused key");
    for (const crossed of [text(ok), text(failed)]) expect(crossed).not.toContain(secret);
    expect(JSON.stringify(await h.gateway.receipts.query({ tool: "leaky.echo" }))).not.toContain(secret);
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

  test("a client that asks for progress hears that its call waits for an operator (its timeout can reset on it)", async () => {
    const { h, tokens, url } = await start();
    const client = await connect(url, tokens.create("editor"));
    const asked = new Promise<{ callId: string }>((resolve) =>
      h.gateway.events.subscribe((e) => e.type === "approval.requested" && resolve(e.request)),
    );
    let heard: (message: string | undefined) => void = () => {};
    const waiting = new Promise<string | undefined>((resolve) => (heard = resolve));
    const call = client.callTool({ name: "reminders.create", arguments: { text: "x", at: "1" } }, undefined, {
      onprogress: (p) => heard(p.message),
      resetTimeoutOnProgress: true,
    });
    expect(await waiting).toBe("waiting for an operator's approval of reminders.create");
    await h.gateway.approvals.decide((await asked).callId, { decision: "approved", by: "operator-1" });
    expect((await call).isError).toBeFalsy();
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

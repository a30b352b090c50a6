/**
 * #34 the client hub's session rules, with in-memory connections standing in for WebSockets: what
 * a reconnect resumes, who may resume, revocation, leaving, cancelled calls, approvals routed to
 * their own session only. (client-tools.e2e.test.ts runs the same hub behind the real WebSocket.)
 */
import { describe, expect, test } from "bun:test";
import type { ToolDefinition } from "@openassistant/sdk";
import { createSecretRegistry } from "@openassistant/core/receipts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import type { TurnOutcome } from "../agent/run-turn.ts";
import type { IncomingMessage } from "../conversations/service.ts";
import { createEventBus } from "../events/bus.ts";
import { createClientHub, type ClientConnection, type ClientHub } from "./hub.ts";
import { openClientTokens, type ClientTokens } from "./tokens.ts";

type Frame = Record<string, any>;

/** A connection the test drives: frames the hub sent, and whether it closed the connection. */
class Conn {
  readonly sent: Frame[] = [];
  closedWith: { code: number; reason: string } | undefined;
  connection!: ClientConnection;
  send(text: string) {
    this.sent.push(JSON.parse(text) as Frame);
  }
  close(code: number, reason: string) {
    this.closedWith = { code, reason };
  }
  frame(f: Frame) {
    this.connection.message(JSON.stringify(f));
  }
  last(type: string): Frame | undefined {
    return this.sent.findLast((f) => f.type === type);
  }
}

function setup(graceMs = 60_000) {
  const tokens: ClientTokens = openClientTokens(makeTempDir("oa-hub-"));
  const events = createEventBus();
  const messages: IncomingMessage[] = [];
  const secrets = createSecretRegistry();
  const hub: ClientHub = createClientHub({
    tokens,
    policy: [],
    handleMessage: async (m) => {
      messages.push(m);
      m.onEvent?.({
        type: "turn.started",
        turnId: "t1",
        sessionId: `stored-${m.sessionKey}`,
        surface: "client",
        at: 0,
      });
      return {
        text: "ok",
        summaryText: "",
        unverified: false,
        stopReason: "answered",
        runIds: [],
      } as unknown as TurnOutcome;
    },
    events,
    secrets,
    namespaceTaken: () => false,
    graceMs,
    log: () => {},
  });
  const open = (token: string, resume?: { session: string; key: string }) => {
    const conn = new Conn();
    conn.connection = hub.connect(conn, token, hub.authenticate(token)!);
    conn.frame(resume ? { type: "open", resume } : { type: "open" });
    return conn;
  };
  return { tokens, events, messages, secrets, hub, open };
}

const register = (conn: Conn) =>
  conn.frame({
    type: "register",
    tools: [
      {
        name: "read_file",
        description: "Read a file",
        inputSchema: { type: "object", properties: { path: { type: "string" } } },
      },
    ],
  });

/** The session's tool as the invoker calls it (after validation and approval). */
function toolOf(hub: ClientHub, conn: Conn): ToolDefinition {
  const opened = conn.last("opened")!;
  return (hub.toolsFor(`client:laptop:${opened.session}`)!.tree as Record<string, ToolDefinition>).read_file!;
}

const ctx = (callId: string, signal = new AbortController().signal) => ({ callId, signal, log: console });

describe("client sessions", () => {
  test("a reconnect within the grace period resumes the session: the pending call is asked again and settles once", async () => {
    const s = setup();
    const { token } = s.tokens.create("laptop");
    const first = s.open(token);
    register(first);
    const tool = toolOf(s.hub, first);
    const result = tool.run({ path: "/a" }, ctx("call_1"));
    expect(first.last("call")).toEqual({ type: "call", call: "call_1", tool: "read_file", input: { path: "/a" } });
    first.connection.closed();

    const opened = first.last("opened")!;
    const second = s.open(token, { session: opened.session, key: opened.key });
    expect(second.last("opened")).toMatchObject({ session: opened.session, resumed: true, pending: 1 });
    expect(second.last("call")).toEqual({ type: "call", call: "call_1", tool: "read_file", input: { path: "/a" } });
    second.frame({ type: "result", call: "call_1", ok: true, value: "A" });
    second.frame({ type: "result", call: "call_1", ok: true, value: "B" });
    expect(await result).toBe("A");
    // The resume key is a credential: the redactor knows it.
    expect(s.secrets.redact(`key ${opened.key}`)).not.toContain(opened.key);
  });

  test("after the grace period the session is gone: its call fails naming the disconnect, its tools are no one's, it cannot be resumed", async () => {
    const s = setup(50);
    const { token } = s.tokens.create("laptop");
    const conn = s.open(token);
    register(conn);
    const opened = conn.last("opened")!;
    const key = `client:laptop:${opened.session}`;
    const result = toolOf(s.hub, conn).run({ path: "/a" }, ctx("call_1"));
    conn.connection.closed();
    await expect(result).rejects.toThrow(
      "tools.client.read_file: the client disconnected and did not come back within 50 ms; the call's outcome on the client is unknown",
    );
    expect(s.hub.toolsFor(key)).toBeUndefined();
    expect(s.hub.sessions).toBe(0);
    const again = s.open(token, { session: opened.session, key: opened.key });
    expect(again.last("error")?.message).toStartWith("no session to resume");
  });

  test("a call made while the client is away fails at once, saying it was not made", async () => {
    const s = setup();
    const { token } = s.tokens.create("laptop");
    const conn = s.open(token);
    register(conn);
    const tool = toolOf(s.hub, conn);
    conn.connection.closed();
    await expect(tool.run({ path: "/a" }, ctx("call_2"))).rejects.toThrow(
      "tools.client.read_file: the client is disconnected (it has 60 s to come back); the call was not made",
    );
  });

  test("only the same token with the session's key resumes it; another token's client neither resumes nor sees it", async () => {
    const s = setup();
    const laptop = s.tokens.create("laptop").token;
    const phone = s.tokens.create("phone").token;
    const conn = s.open(laptop);
    register(conn);
    const opened = conn.last("opened")!;
    conn.connection.closed();
    const stranger = s.open(phone, { session: opened.session, key: opened.key });
    expect(stranger.last("error")?.message).toStartWith("no session to resume");
    const wrongKey = s.open(laptop, { session: opened.session, key: `${opened.key.slice(0, -1)}x` });
    expect(wrongKey.last("error")?.message).toStartWith("no session to resume");
    // The phone's own session has no client tools, and its frames never reach the laptop's session.
    const phoneSession = s.open(phone);
    expect(s.hub.toolsFor(`client:phone:${phoneSession.last("opened")!.session}`)).toBeUndefined();
    phoneSession.frame({ type: "result", call: "call_x", ok: true, value: 1 });
    expect(s.hub.toolsFor(`client:laptop:${opened.session}`)).toBeDefined();
  });

  test("approvals are streamed to the session whose turn asked, and to no other", async () => {
    const s = setup();
    // The other session opened first: a rule that picks any session would pick it.
    const b = s.open(s.tokens.create("phone").token);
    const a = s.open(s.tokens.create("laptop").token);
    a.frame({ type: "message", id: "m1", text: "hi" });
    const stored = `stored-${s.messages[0]!.sessionKey}`;
    s.events.emit({
      type: "approval.requested",
      request: {
        callId: "call_9",
        runId: "r",
        sessionId: stored,
        toolPath: "client.read_file",
        inputPreview: "{}",
      } as never,
    });
    s.events.emit({
      type: "approval.decided",
      callId: "call_9",
      decision: { decision: "approved", by: "discord:1" } as never,
    });
    expect(a.sent.filter((f) => f.type === "approval").map((f) => f.state)).toEqual(["requested", "decided"]);
    expect(b.sent.some((f) => f.type === "approval")).toBe(false);
    expect(s.messages[0]).toMatchObject({ surface: "client", userId: "client:laptop" });
  });

  test("a revoked token: the next frame ends the session (4401), its calls fail, and the token opens nothing more", async () => {
    const s = setup();
    const { token } = s.tokens.create("laptop");
    const conn = s.open(token);
    register(conn);
    const result = toolOf(s.hub, conn).run({ path: "/a" }, ctx("call_1"));
    expect(s.tokens.revoke("laptop")).toBe(true);
    conn.frame({ type: "message", id: "m1", text: "still here?" });
    expect(conn.closedWith?.code).toBe(4401);
    await expect(result).rejects.toThrow("the client's token was revoked");
    expect(s.hub.authenticate(token)).toBeUndefined();
    expect(s.messages).toEqual([]);
  });

  test("a cancelled call (its run timed out or ended) is withdrawn from the client and fails with the reason", async () => {
    const s = setup();
    const conn = s.open(s.tokens.create("laptop").token);
    register(conn);
    const controller = new AbortController();
    const result = toolOf(s.hub, conn).run({ path: "/a" }, ctx("call_1", controller.signal));
    controller.abort(new Error("client.read_file did not finish within 2 s"));
    await expect(result).rejects.toThrow("client.read_file did not finish within 2 s");
    expect(conn.last("cancel")).toMatchObject({ call: "call_1" });
    // A late answer changes nothing.
    conn.frame({ type: "result", call: "call_1", ok: true, value: "late" });
  });

  test("leaving ends the session at once: tools gone, pending calls fail, nothing kept", async () => {
    const s = setup();
    const conn = s.open(s.tokens.create("laptop").token);
    register(conn);
    const key = `client:laptop:${conn.last("opened")!.session}`;
    const result = toolOf(s.hub, conn).run({ path: "/a" }, ctx("call_1"));
    conn.frame({ type: "leave" });
    await expect(result).rejects.toThrow("tools.client.read_file: the client left");
    expect(s.hub.toolsFor(key)).toBeUndefined();
    expect(s.hub.sessions).toBe(0);
  });

  test("frames before open, unknown types and non-JSON get an error naming what to send", () => {
    const s = setup();
    const { token } = s.tokens.create("laptop");
    const conn = new Conn();
    conn.connection = s.hub.connect(conn, token, s.hub.authenticate(token)!);
    conn.frame({ type: "register", tools: [] });
    expect(conn.last("error")?.message).toBe('send { "type": "open" } first');
    conn.connection.message("not json");
    expect(conn.last("error")?.message).toBe("a frame must be one JSON object");
    conn.frame({ type: "approve", call: "x" });
    expect(conn.last("error")?.message).toStartWith('unknown message type "approve"');
  });
});

import WebSocket from "ws";
import { startMcpBridge, type McpServerSpec } from "./mcp-bridge.ts";
import { localTool, type ClientTool, type LocalTool } from "./tools.ts";

export interface ConnectOptions {
  /** The gateway's HTTP API, e.g. `http://127.0.0.1:8787` (the WebSocket is `<url>/client`). */
  readonly url: string;
  /** A client token (`openassistant clients create <name>` prints one). */
  readonly token: string;
  /** After an unexpected drop, connect again and resume the session (its pending calls too). Default true. */
  readonly reconnect?: boolean;
  /** Every approval of this session's calls (an operator decides them on the gateway's surfaces). */
  readonly onApproval?: (update: ApprovalUpdate) => void;
  /** Lines about the connection (drops, resumes); default none. */
  readonly log?: (line: string) => void;
}

export type ApprovalUpdate =
  | { readonly state: "requested"; readonly call: string; readonly tool: string; readonly input: string }
  | {
      readonly state: "decided";
      readonly call: string;
      readonly decision: { decision: string; by: string; reason?: string };
    };

export interface Registered {
  readonly tools: ReadonlyArray<{ readonly name: string; readonly path: string; readonly approval: string }>;
  readonly refused: ReadonlyArray<{ readonly name: string; readonly reason: string }>;
}

export interface Answer {
  readonly text: string;
  /** One line per tool call (✅ ⛔ ❌ ⏳) with receipt references. */
  readonly summaryText: string;
  readonly unverified: boolean;
  readonly stopReason: string;
  readonly runIds: readonly string[];
}

export interface AskOptions {
  /** The answer's text as the model streams it. */
  readonly onText?: (text: string) => void;
}

export interface OpenAssistantClient {
  /** This session's id on the gateway. */
  readonly session: string;
  /** Adds tools (by name) and registers the whole set again; resolves with what the gateway took. */
  addTools(tools: Record<string, ClientTool>): Promise<Registered>;
  /** Starts a local MCP server (stdio) and adds its tools as `<prefix>_<tool>`. */
  bridgeMcp(spec: McpServerSpec): Promise<Registered>;
  /** Sends a message in this session; resolves with the answer. */
  ask(text: string, options?: AskOptions): Promise<Answer>;
  /** Leaves: the session and its tools end on the gateway, bridged servers stop. */
  close(): Promise<void>;
}

/** Results kept for calls the gateway may ask again after a reconnect. */
const KEPT_RESULTS = 256;
/** Largest result frame sent: the gateway's frame limit (4 MiB) less room for the envelope. */
const MAX_RESULT_BYTES = 4 * 1024 * 1024 - 1024;
/** How long to keep trying to come back after a drop. */
const RECONNECT_FOR_MS = 60_000;

type Frame = Record<string, any>;

/** Connects to a gateway and opens a session. */
export async function connect(options: ConnectOptions): Promise<OpenAssistantClient> {
  const wsUrl = `${options.url.replace(/\/+$/, "").replace(/^http/, "ws")}/client`;
  const log = options.log ?? (() => {});
  const tools = new Map<string, LocalTool>();
  const bridges: Array<{ close(): Promise<void> }> = [];
  const running = new Map<string, AbortController>();
  const results = new Map<string, string>();
  const asks = new Map<string, { resolve(a: Answer): void; reject(e: Error): void; onText?: (t: string) => void }>();
  let registering: { resolve(r: Registered): void; reject(e: Error): void } | undefined;
  let registerChain: Promise<unknown> = Promise.resolve();
  let session: { id: string; key: string } | undefined;
  let socket: WebSocket | undefined;
  let closing = false;
  let askSeq = 0;

  const sendFrame = (frame: Frame | string) => {
    const text = typeof frame === "string" ? frame : JSON.stringify(frame);
    if (socket?.readyState === WebSocket.OPEN) socket.send(text);
  };

  async function runCall(frame: Frame): Promise<void> {
    const id = String(frame.call);
    const kept = results.get(id);
    if (kept) return sendFrame(kept);
    if (running.has(id)) return;
    const tool = tools.get(String(frame.tool));
    const controller = new AbortController();
    running.set(id, controller);
    let reply: Frame;
    try {
      if (!tool) throw new Error(`no tool "${String(frame.tool)}" in this client`);
      const value = await tool.run((frame.input ?? {}) as Record<string, unknown>, {
        callId: id,
        signal: controller.signal,
      });
      reply = { type: "result", call: id, ok: true, value: value === undefined ? null : value };
    } catch (e) {
      reply = { type: "result", call: id, ok: false, error: e instanceof Error ? e.message : String(e) };
    } finally {
      running.delete(id);
    }
    let text = JSON.stringify(reply);
    // The gateway closes a connection on a frame over its limit: say so instead of sending it.
    if (Buffer.byteLength(text) > MAX_RESULT_BYTES)
      text = JSON.stringify({
        type: "result",
        call: id,
        ok: false,
        error: `the result of ${String(frame.tool)} is ${Buffer.byteLength(text)} bytes; a gateway takes at most ${MAX_RESULT_BYTES} bytes in one result: return less (a summary, a page, a path)`,
      });
    results.set(id, text);
    if (results.size > KEPT_RESULTS) results.delete(results.keys().next().value!);
    sendFrame(text);
  }

  function onFrame(frame: Frame): void {
    switch (frame.type) {
      case "call":
        void runCall(frame);
        return;
      case "cancel":
        running.get(String(frame.call))?.abort(new Error(String(frame.reason ?? "cancelled by the gateway")));
        return;
      case "registered":
        registering?.resolve({ tools: frame.tools ?? [], refused: frame.refused ?? [] });
        registering = undefined;
        return;
      case "event": {
        const e = frame.event;
        if (e?.type === "model.text") asks.get(String(frame.id))?.onText?.(String(e.text));
        return;
      }
      case "approval":
        options.onApproval?.(frame as unknown as ApprovalUpdate);
        return;
      case "answer": {
        const ask = asks.get(String(frame.id));
        asks.delete(String(frame.id));
        ask?.resolve({
          text: frame.text,
          summaryText: frame.summaryText,
          unverified: frame.unverified,
          stopReason: frame.stopReason,
          runIds: frame.runIds ?? [],
        });
        return;
      }
      case "error": {
        const ask = frame.id ? asks.get(String(frame.id)) : undefined;
        if (ask) {
          asks.delete(String(frame.id));
          ask.reject(new Error(String(frame.message)));
        } else log(`gateway: ${String(frame.message)}`);
        return;
      }
    }
  }

  /** Opens a WebSocket and a session on it (resuming ours when we have one). */
  function open(resume: boolean): Promise<{ resumed: boolean }> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(wsUrl, { headers: { authorization: `Bearer ${options.token}` } });
      let opened = false;
      ws.on("unexpected-response", (_req, res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () => reject(new Error(`the gateway refused the connection (HTTP ${res.statusCode}): ${body}`)));
      });
      ws.on("error", (e) => opened || reject(e));
      ws.on("open", () => {
        socket = ws;
        ws.send(
          JSON.stringify(
            resume && session ? { type: "open", resume: { session: session.id, key: session.key } } : { type: "open" },
          ),
        );
      });
      ws.on("message", (data) => {
        let frame: Frame;
        try {
          frame = JSON.parse(data.toString()) as Frame;
        } catch {
          return;
        }
        if (!opened) {
          if (frame.type === "opened") {
            opened = true;
            session = { id: String(frame.session), key: String(frame.key) };
            // Results the gateway did not get before the drop.
            for (const text of results.values()) ws.send(text);
            resolve({ resumed: frame.resumed === true });
          } else if (frame.type === "error") {
            ws.close();
            reject(new Error(String(frame.message)));
          }
          return;
        }
        onFrame(frame);
      });
      ws.on("close", (code, reason) => {
        if (socket !== ws) return;
        socket = undefined;
        if (!opened || closing) return;
        log(`connection closed (${code} ${reason.toString()})`);
        if (code === 4401 || code === 1000 || code === 1001 || options.reconnect === false)
          return failAll(`the connection closed (${code} ${reason.toString()})`);
        void comeBack();
      });
    });
  }

  function failAll(why: string): void {
    for (const ask of asks.values()) ask.reject(new Error(why));
    asks.clear();
    registering?.reject(new Error(why));
    registering = undefined;
  }

  /** After a drop: connect again and resume; a session that ended is opened anew with the same tools. */
  async function comeBack(): Promise<void> {
    const until = Date.now() + RECONNECT_FOR_MS;
    for (let wait = 250; !closing && Date.now() < until; wait = Math.min(wait * 2, 5_000)) {
      await new Promise((r) => setTimeout(r, wait));
      try {
        const { resumed } = await open(true);
        log(resumed ? "resumed the session" : "opened a new session");
        return;
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        if (message.startsWith("no session to resume")) {
          session = undefined;
          failAll("the session ended while the connection was down");
          await open(false);
          await register();
          log("the session had ended: opened a new one and registered the tools again");
          return;
        }
        log(`reconnecting failed: ${message}`);
      }
    }
    failAll("could not reconnect to the gateway");
  }

  function register(): Promise<Registered> {
    const next = registerChain.then(
      () =>
        new Promise<Registered>((resolve, reject) => {
          registering = { resolve, reject };
          sendFrame({
            type: "register",
            tools: [...tools.values()].map((t) => ({
              name: t.name,
              description: t.description,
              inputSchema: t.inputSchema,
            })),
          });
        }),
    );
    registerChain = next.catch(() => {});
    return next;
  }

  await open(false);
  return {
    get session() {
      return session?.id ?? "";
    },
    addTools(more) {
      for (const [name, tool] of Object.entries(more)) tools.set(name, localTool(name, tool));
      return register();
    },
    async bridgeMcp(spec) {
      const bridge = await startMcpBridge(spec);
      bridges.push(bridge);
      for (const t of bridge.tools) tools.set(t.name, t);
      return register();
    },
    ask(text, askOptions = {}) {
      const id = `a${++askSeq}`;
      return new Promise<Answer>((resolve, reject) => {
        if (socket?.readyState !== WebSocket.OPEN)
          return reject(new Error("not connected to the gateway (reconnecting, or closed); ask again once connected"));
        asks.set(id, { resolve, reject, ...(askOptions.onText ? { onText: askOptions.onText } : {}) });
        sendFrame({ type: "message", id, text });
      });
    },
    async close() {
      closing = true;
      for (const c of running.values()) c.abort(new Error("the client is closing"));
      const ws = socket;
      if (ws?.readyState === WebSocket.OPEN) {
        ws.send(JSON.stringify({ type: "leave" }));
        await new Promise<void>((r) => {
          ws.once("close", () => r());
          ws.close(1000, "client left");
        });
      }
      failAll("the client closed");
      await Promise.allSettled(bridges.map((b) => b.close()));
    },
  };
}

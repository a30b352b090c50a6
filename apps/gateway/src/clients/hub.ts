import type { ToolContext, ToolTree } from "@openassistant/sdk";
import type { PolicyRule } from "@openassistant/core/policy";
import type { SecretSink } from "@openassistant/core/receipts";
import { cutText, ELLIPSIS, escapeInvisible } from "@openassistant/core/text";
import type { TurnOutcome } from "../agent/run-turn.ts";
import type { IncomingMessage } from "../conversations/service.ts";
import type { EventBus } from "../events/bus.ts";
import type { GatewayEvent } from "../events/types.ts";
import { parseClientMessage, type ClientMessage } from "./protocol.ts";
import { CLIENT_NAMESPACE, registerClientTools } from "./registration.ts";
import type { ClientTokenRecord, ClientTokens } from "./tokens.ts";

/** One live connection, as the hub sees it (a WebSocket in production, anything in tests). */
export interface ClientSocket {
  send(text: string): void;
  close(code: number, reason: string): void;
}

export interface ClientHubOptions {
  readonly tokens: ClientTokens;
  readonly policy: readonly PolicyRule[];
  readonly handleMessage: (message: IncomingMessage) => Promise<TurnOutcome>;
  readonly events: Pick<EventBus, "subscribe">;
  /** Client tokens and resume keys are credentials: the redactor learns them. */
  readonly secrets: SecretSink;
  /** Whether the gateway's own tools already have a top-level `client` (then client tools are refused). */
  readonly namespaceTaken: () => boolean;
  /** How long a session waits for its client to come back after the connection drops; default 30 s. */
  readonly graceMs?: number;
  readonly log: (line: string) => void;
}

/** What a connection hands the hub: each frame, and its end. */
export interface ClientConnection {
  message(frame: string): void;
  closed(): void;
}

export interface ClientHub {
  /** The token's record when the bearer token is a live client token. */
  authenticate(token: string | undefined): ClientTokenRecord | undefined;
  connect(socket: ClientSocket, token: string, record: ClientTokenRecord): ClientConnection;
  /** The `client` subtree of the session with this conversation key, when its client registered tools. */
  toolsFor(sessionKey: string): { readonly tree: ToolTree; readonly version: number } | undefined;
  /** Sessions open (connected or within their grace period). */
  readonly sessions: number;
  /** Ends every session (shutdown): their calls fail, their turns are cancelled. */
  close(reason: string): void;
}

/** Sessions one token may hold at once. */
export const MAX_SESSIONS_PER_TOKEN = 16;
/** Characters of a client's error text kept in the call's failure. */
const CLIENT_ERROR_CHARS = 2_000;

interface PendingCall {
  readonly name: string;
  readonly frame: string;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

interface Session {
  readonly id: string;
  /** Its conversation key: `client:<token name>:<id>`. */
  readonly key: string;
  readonly resumeKey: string;
  readonly token: string;
  readonly record: ClientTokenRecord;
  socket: ClientSocket | undefined;
  tree: ToolTree | undefined;
  version: number;
  readonly pending: Map<string, PendingCall>;
  /** The stored session ids its turns ran in (approval events name these). */
  readonly storedIds: Set<string>;
  /** Calls of this session waiting for an approval (decisions name only the call). */
  readonly approvalCalls: Set<string>;
  graceTimer: ReturnType<typeof setTimeout> | undefined;
  readonly turns: AbortController;
}

/** A duration as people read it: "500 ms", "30 s". */
const duration = (ms: number) => (ms < 1_000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`);

const randomText = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64url");

export function createClientHub(o: ClientHubOptions): ClientHub {
  const graceMs = o.graceMs ?? 30_000;
  const sessions = new Map<string, Session>();
  const byKey = new Map<string, Session>();

  const send = (session: Session | undefined, socket: ClientSocket | undefined, message: unknown) => {
    const target = socket ?? session?.socket;
    try {
      target?.send(JSON.stringify(message));
    } catch {
      // a closing socket: its close handler ends or parks the session
    }
  };

  /** Ends a session for good: calls waiting on the client fail with `why`, its turns are cancelled. */
  function end(session: Session, why: string, code = 4000): void {
    if (sessions.get(session.id) !== session) return;
    sessions.delete(session.id);
    byKey.delete(session.key);
    clearTimeout(session.graceTimer);
    for (const [id, call] of session.pending) {
      session.pending.delete(id);
      call.reject(
        new Error(
          `tools.${CLIENT_NAMESPACE}.${call.name}: ${why}; the call's outcome on the client is unknown (it may or may not have run there)`,
        ),
      );
    }
    session.turns.abort(why);
    const socket = session.socket;
    session.socket = undefined;
    session.tree = undefined;
    try {
      socket?.close(code, cutText(why, 100));
    } catch {
      // already closed
    }
    o.log(`client session ${session.id} (${session.record.name}) ended: ${why}`);
  }

  /** Runs one call of a client tool on its client (the invoker has validated the input and settled the approval). */
  function callClient(
    session: Session,
    name: string,
    input: Record<string, unknown>,
    ctx?: ToolContext,
  ): Promise<unknown> {
    const tool = `tools.${CLIENT_NAMESPACE}.${name}`;
    if (sessions.get(session.id) !== session)
      return Promise.reject(new Error(`${tool}: the client of this session has left; the call was not made`));
    if (!o.tokens.verify(session.token)) {
      end(session, "the client's token was revoked", 4401);
      return Promise.reject(new Error(`${tool}: the client's token was revoked; the call was not made`));
    }
    if (!session.socket)
      return Promise.reject(
        new Error(
          `${tool}: the client is disconnected (it has ${duration(graceMs)} to come back); the call was not made. Try again once the user's client is connected.`,
        ),
      );
    const id = ctx?.callId ?? `ccall_${randomText(12)}`;
    const frame = JSON.stringify({ type: "call", call: id, tool: name, input });
    return new Promise<unknown>((resolve, reject) => {
      const signal = ctx?.signal;
      const onAbort = () => {
        if (!session.pending.delete(id)) return;
        send(session, undefined, { type: "cancel", call: id, reason: String(signal?.reason ?? "cancelled") });
        reject(signal?.reason instanceof Error ? signal.reason : new Error(`${tool}: ${String(signal?.reason)}`));
      };
      session.pending.set(id, {
        name,
        frame,
        resolve: (v) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(v);
        },
        reject: (e) => {
          signal?.removeEventListener("abort", onAbort);
          reject(e);
        },
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      session.socket?.send(frame);
    });
  }

  function open(
    socket: ClientSocket,
    token: string,
    record: ClientTokenRecord,
    m: Extract<ClientMessage, { type: "open" }>,
  ) {
    if (m.resume) {
      const session = sessions.get(m.resume.session);
      if (!session || session.record.id !== record.id || !sameText(session.resumeKey, m.resume.key)) {
        send(undefined, socket, {
          type: "error",
          message:
            "no session to resume with that id and key for this token (it ended: its grace period passed, or it left); open a new one",
        });
        return undefined;
      }
      const old = session.socket;
      session.socket = socket;
      clearTimeout(session.graceTimer);
      session.graceTimer = undefined;
      if (old && old !== socket) old.close(4409, "resumed on another connection");
      send(session, undefined, {
        type: "opened",
        session: session.id,
        key: session.resumeKey,
        resumed: true,
        pending: session.pending.size,
      });
      // Calls made before the connection dropped are asked again; the client answers each call id once.
      for (const call of session.pending.values()) socket.send(call.frame);
      return session;
    }
    const held = [...sessions.values()].filter((s) => s.record.id === record.id).length;
    if (held >= MAX_SESSIONS_PER_TOKEN) {
      send(undefined, socket, {
        type: "error",
        message: `this token holds ${held} sessions already (at most ${MAX_SESSIONS_PER_TOKEN}); close one first`,
      });
      return undefined;
    }
    const id = `cs_${randomText(12)}`;
    const session: Session = {
      id,
      key: `client:${record.name}:${id}`,
      resumeKey: randomText(32),
      token,
      record,
      socket,
      tree: undefined,
      version: 0,
      pending: new Map(),
      storedIds: new Set(),
      approvalCalls: new Set(),
      graceTimer: undefined,
      turns: new AbortController(),
    };
    o.secrets.add("http-token", [session.resumeKey]);
    sessions.set(id, session);
    byKey.set(session.key, session);
    send(session, undefined, { type: "opened", session: id, key: session.resumeKey, resumed: false, pending: 0 });
    return session;
  }

  function register(session: Session, tools: unknown): void {
    if (o.namespaceTaken()) {
      send(session, undefined, {
        type: "registered",
        tools: [],
        refused: [
          {
            name: "(all)",
            reason: `the gateway's own tools use tools.${CLIENT_NAMESPACE}; client tools cannot be mounted (rename that plugin or source)`,
          },
        ],
      });
      return;
    }
    const r = registerClientTools(tools, (name, input, ctx) => callClient(session, name, input, ctx), o.policy);
    session.tree = r.tools.length ? r.tree : undefined;
    session.version++;
    send(session, undefined, { type: "registered", tools: r.tools, refused: r.refused });
  }

  function message(session: Session, m: Extract<ClientMessage, { type: "message" }>): void {
    const onEvent = (e: GatewayEvent) => {
      if (e.type === "turn.started") session.storedIds.add(e.sessionId);
      if (
        e.type === "model.text" ||
        e.type === "model.text.discarded" ||
        e.type === "turn.started" ||
        e.type === "turn.finished"
      )
        send(session, undefined, { type: "event", id: m.id, event: e });
    };
    o.handleMessage({
      sessionKey: session.key,
      surface: "client",
      userId: `client:${session.record.name}`,
      text: m.text,
      signal: session.turns.signal,
      onEvent,
    }).then(
      (outcome) =>
        send(session, undefined, {
          type: "answer",
          id: m.id,
          text: outcome.text,
          summaryText: outcome.summaryText,
          unverified: outcome.unverified,
          stopReason: outcome.stopReason,
          runIds: outcome.runIds,
        }),
      (e) => send(session, undefined, { type: "error", id: m.id, message: e instanceof Error ? e.message : String(e) }),
    );
  }

  function result(session: Session, m: Extract<ClientMessage, { type: "result" }>): void {
    const call = session.pending.get(m.call);
    if (!call) return; // cancelled, timed out, or answered already
    session.pending.delete(m.call);
    if (m.ok) call.resolve(m.value ?? null);
    else
      call.reject(
        new Error(
          `tools.${CLIENT_NAMESPACE}.${call.name} failed on the client: ${cutText(escapeInvisible(m.error ?? "no reason given"), CLIENT_ERROR_CHARS, { marker: ELLIPSIS })}`,
        ),
      );
  }

  // Approvals of a client's calls are streamed to it (it cannot decide them: an operator does).
  const unsubscribe = o.events.subscribe((e) => {
    if (e.type === "approval.requested") {
      const sid = e.request.sessionId;
      const session = sid ? [...sessions.values()].find((s) => s.storedIds.has(sid)) : undefined;
      if (!session) return;
      session.approvalCalls.add(e.request.callId);
      send(session, undefined, {
        type: "approval",
        state: "requested",
        call: e.request.callId,
        tool: e.request.toolPath,
        input: e.request.inputPreview,
      });
    } else if (e.type === "approval.decided") {
      const session = [...sessions.values()].find((s) => s.approvalCalls.delete(e.callId));
      if (session)
        send(session, undefined, { type: "approval", state: "decided", call: e.callId, decision: e.decision });
    }
  });

  return {
    authenticate: (token) => (token ? o.tokens.verify(token) : undefined),
    connect(socket, token, record) {
      o.secrets.add("http-token", [token]);
      let session: Session | undefined;
      return {
        message(frame) {
          const m = parseClientMessage(frame);
          if ("problem" in m) return send(undefined, socket, { type: "error", message: m.problem });
          if (!o.tokens.verify(token)) {
            if (session) end(session, "the client's token was revoked", 4401);
            else socket.close(4401, "the client's token was revoked");
            return;
          }
          if (m.type === "open") {
            if (session)
              return send(session, socket, { type: "error", message: "this connection has a session already" });
            session = open(socket, token, record, m);
            return;
          }
          if (!session || session.socket !== socket)
            return send(undefined, socket, { type: "error", message: 'send { "type": "open" } first' });
          if (m.type === "register") register(session, m.tools);
          else if (m.type === "message") message(session, m);
          else if (m.type === "result") result(session, m);
          else end(session, "the client left", 1000);
        },
        closed() {
          if (!session || session.socket !== socket || sessions.get(session.id) !== session) return;
          const s = session;
          s.socket = undefined;
          s.graceTimer = setTimeout(
            () => end(s, `the client disconnected and did not come back within ${duration(graceMs)}`),
            graceMs,
          );
        },
      };
    },
    toolsFor(sessionKey) {
      const session = byKey.get(sessionKey);
      return session?.tree ? { tree: session.tree, version: session.version } : undefined;
    },
    get sessions() {
      return sessions.size;
    },
    close(reason) {
      unsubscribe();
      for (const session of [...sessions.values()]) end(session, reason, 1001);
    },
  };
}

/** Constant-time comparison of two texts. */
function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

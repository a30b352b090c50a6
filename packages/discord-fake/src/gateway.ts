import type { ServerWebSocket } from "bun";
import { randomToken } from "./snowflake.ts";
import { Intents, PRIVILEGED_INTENTS, type Json, type RecordedFrame } from "./types.ts";
import type { World } from "./world.ts";

export interface SocketData {
  connectionId: number;
  path: string;
}

export interface GatewaySession {
  id: string;
  intents: number;
  seq: number;
  /** Every dispatch of this session, kept for RESUME replay. */
  events: { s: number; t: string; d: Json }[];
  connection: GatewayConnection | null;
  valid: boolean;
}

export interface GatewayConnection {
  id: number;
  ws: ServerWebSocket<SocketData>;
  path: string;
  session: GatewaySession | null;
  open: boolean;
}

/** One gateway WebSocket connection, for inspection. */
export interface ConnectionInfo {
  id: number;
  /** `/gateway` for fresh connects, `/resume-gateway` for connects to resume_gateway_url. */
  path: string;
  openedAt: number;
  closedAt: number | null;
  closeCode: number | null;
}

export interface GatewayConfig {
  token: string;
  botId: string;
  applicationId: string;
  applicationFlags: number;
  heartbeatIntervalMs: number;
  allowedPrivilegedIntents: number;
  resumeUrl: () => string;
  record: (frame: Omit<RecordedFrame, "index" | "time">) => void;
}

const OP = {
  Dispatch: 0,
  Heartbeat: 1,
  Identify: 2,
  Presence: 3,
  VoiceState: 4,
  Resume: 6,
  Reconnect: 7,
  RequestMembers: 8,
  InvalidSession: 9,
  Hello: 10,
  HeartbeatAck: 11,
} as const;
const MAX_REPLAY = 5000;

/** Payload for one session, or null to skip it (e.g. missing intent). */
export type SessionView = (session: GatewaySession) => Json | null;

/** The WebSocket gateway: HELLO/IDENTIFY/READY, heartbeats, RESUME with replay, dispatch with intents. */
export class Gateway {
  readonly sessions = new Map<string, GatewaySession>();
  readonly connections = new Map<number, GatewayConnection>();
  readonly connectionLog: ConnectionInfo[] = [];
  private nextConnectionId = 1;

  constructor(
    private readonly world: World,
    private readonly config: GatewayConfig,
  ) {}

  onOpen(ws: ServerWebSocket<SocketData>): void {
    const connection: GatewayConnection = {
      id: ws.data.connectionId,
      ws,
      path: ws.data.path,
      session: null,
      open: true,
    };
    this.connections.set(connection.id, connection);
    this.connectionLog.push({
      id: connection.id,
      path: connection.path,
      openedAt: Date.now(),
      closedAt: null,
      closeCode: null,
    });
    this.send(connection, {
      op: OP.Hello,
      d: { heartbeat_interval: this.config.heartbeatIntervalMs, _trace: ["fake-discord"] },
    });
  }

  allocateConnectionId(): number {
    return this.nextConnectionId++;
  }

  onClose(ws: ServerWebSocket<SocketData>, code: number): void {
    const info = this.connectionLog.find((c) => c.id === ws.data.connectionId);
    if (info) Object.assign(info, { closedAt: Date.now(), closeCode: code });
    const connection = this.connections.get(ws.data.connectionId);
    if (!connection) return;
    connection.open = false;
    this.connections.delete(connection.id);
    const session = connection.session;
    if (session && session.connection === connection) {
      session.connection = null;
      // A clean close (1000/1001) ends the session; anything else (4200, drops) keeps it resumable.
      if (code === 1000 || code === 1001) session.valid = false;
    }
  }

  onMessage(ws: ServerWebSocket<SocketData>, raw: string | Buffer): void {
    const connection = this.connections.get(ws.data.connectionId);
    if (!connection) return;
    let payload: Json;
    try {
      payload = JSON.parse(typeof raw === "string" ? raw : raw.toString("utf8"));
    } catch {
      this.config.record({
        direction: "in",
        connectionId: connection.id,
        sessionId: connection.session?.id ?? null,
        op: -1,
        t: null,
        s: null,
        d: String(raw),
      });
      return this.close(connection, 4002, "Error while decoding payload.");
    }
    this.config.record({
      direction: "in",
      connectionId: connection.id,
      sessionId: connection.session?.id ?? null,
      op: payload.op,
      t: null,
      s: null,
      d: redactToken(payload.d),
    });
    switch (payload.op) {
      case OP.Heartbeat:
        return this.send(connection, { op: OP.HeartbeatAck });
      case OP.Identify:
        return this.identify(connection, payload.d ?? {});
      case OP.Resume:
        return this.resume(connection, payload.d ?? {});
      case OP.Presence:
      case OP.VoiceState:
      case 31:
        if (!connection.session) return this.close(connection, 4003, "Not authenticated.");
        return;
      case OP.RequestMembers:
        if (!connection.session) return this.close(connection, 4003, "Not authenticated.");
        return this.requestMembers(connection.session, payload.d ?? {});
      default:
        return this.close(connection, 4001, "Unknown opcode.");
    }
  }

  private identify(connection: GatewayConnection, d: Json): void {
    if (connection.session) return this.close(connection, 4005, "Already authenticated.");
    if (d.token !== this.config.token && d.token !== `Bot ${this.config.token}`) {
      return this.close(connection, 4004, "Authentication failed.");
    }
    if (typeof d.intents !== "number" || d.intents < 0) return this.close(connection, 4013, "Invalid intent(s).");
    if (d.intents & PRIVILEGED_INTENTS & ~this.config.allowedPrivilegedIntents) {
      return this.close(connection, 4014, "Disallowed intent(s).");
    }
    const session: GatewaySession = {
      id: randomToken(16),
      intents: d.intents,
      seq: 0,
      events: [],
      connection,
      valid: true,
    };
    this.sessions.set(session.id, session);
    connection.session = session;
    const guildIds = [...this.world.guilds.values()].filter((g) => g.members.has(this.config.botId)).map((g) => g.id);
    this.dispatchTo(session, "READY", {
      v: 10,
      user: { ...this.world.apiUser(this.config.botId), verified: true, mfa_enabled: false, email: null },
      guilds: guildIds.map((id) => ({ id, unavailable: true })),
      session_id: session.id,
      session_type: "normal",
      resume_gateway_url: this.config.resumeUrl(),
      shard: d.shard ?? [0, 1],
      application: { id: this.config.applicationId, flags: this.config.applicationFlags },
      private_channels: [],
      presences: [],
      relationships: [],
      guild_join_requests: [],
      geo_ordered_rtc_regions: [],
      user_settings: {},
      _trace: ["fake-discord"],
    });
    if (session.intents & Intents.Guilds) {
      const allMembers = (session.intents & Intents.GuildMembers) !== 0;
      for (const id of guildIds) this.dispatchTo(session, "GUILD_CREATE", this.world.apiGuildCreate(id, allMembers));
    }
  }

  private resume(connection: GatewayConnection, d: Json): void {
    if (connection.session) return this.close(connection, 4005, "Already authenticated.");
    if (d.token !== this.config.token && d.token !== `Bot ${this.config.token}`) {
      return this.close(connection, 4004, "Authentication failed.");
    }
    const session = this.sessions.get(d.session_id);
    if (!session || !session.valid) return this.send(connection, { op: OP.InvalidSession, d: false });
    if (typeof d.seq !== "number" || d.seq > session.seq) return this.close(connection, 4007, "Invalid seq.");
    const oldest = session.events[0]?.s ?? session.seq + 1;
    if (d.seq + 1 < oldest) return this.send(connection, { op: OP.InvalidSession, d: false });
    const previous = session.connection;
    if (previous && previous !== connection) {
      previous.session = null;
      this.close(previous, 4000, "Session resumed elsewhere.");
    }
    session.connection = connection;
    connection.session = session;
    for (const event of session.events) {
      if (event.s > d.seq) this.send(connection, { op: OP.Dispatch, t: event.t, s: event.s, d: event.d });
    }
    this.dispatchTo(session, "RESUMED", { _trace: ["fake-discord"] });
  }

  private requestMembers(session: GatewaySession, d: Json): void {
    const guild = this.world.guilds.get(d.guild_id);
    if (!guild) return;
    let ids = [...guild.members.keys()];
    if (Array.isArray(d.user_ids)) ids = ids.filter((id) => d.user_ids.includes(id));
    else if (typeof d.user_ids === "string") ids = ids.filter((id) => id === d.user_ids);
    else if (typeof d.query === "string" && d.query) {
      ids = ids.filter((id) => this.world.user(id).username.toLowerCase().startsWith(String(d.query).toLowerCase()));
    }
    if (d.limit) ids = ids.slice(0, d.limit);
    this.dispatchTo(session, "GUILD_MEMBERS_CHUNK", {
      guild_id: guild.id,
      members: ids.map((id) => this.world.apiMember(guild.id, id)),
      chunk_index: 0,
      chunk_count: 1,
      not_found: [],
      nonce: d.nonce,
    });
  }

  /** Sends an event to every valid session; `view` can tailor or suppress it per session. */
  dispatch(t: string, d: Json, view?: SessionView): void {
    for (const session of this.sessions.values()) {
      if (!session.valid) continue;
      const payload = view ? view(session) : d;
      if (payload) this.dispatchTo(session, t, payload);
    }
  }

  private dispatchTo(session: GatewaySession, t: string, d: Json): void {
    const s = ++session.seq;
    session.events.push({ s, t, d });
    if (session.events.length > MAX_REPLAY) session.events.shift();
    if (session.connection?.open) this.send(session.connection, { op: OP.Dispatch, t, s, d });
  }

  /** Server-side drop of every live connection (sessions stay resumable). */
  dropConnections(options: { code?: number; abrupt?: boolean } = {}): number {
    const live = [...this.connections.values()].filter((c) => c.open);
    for (const connection of live) {
      if (options.abrupt) {
        connection.open = false;
        connection.ws.terminate();
      } else {
        this.close(connection, options.code ?? 4000, "Dropped by fake-discord.");
      }
    }
    return live.length;
  }

  /** Sends op 7 RECONNECT to every identified connection. */
  requestReconnect(): number {
    const live = [...this.connections.values()].filter((c) => c.open && c.session);
    for (const connection of live) this.send(connection, { op: OP.Reconnect, d: null });
    return live.length;
  }

  /** Sends op 9 INVALID_SESSION; when not resumable the session is forgotten (client must IDENTIFY again). */
  invalidateSessions(resumable: boolean): number {
    const live = [...this.connections.values()].filter((c) => c.open && c.session);
    for (const connection of live) {
      if (!resumable && connection.session) connection.session.valid = false;
      this.send(connection, { op: OP.InvalidSession, d: resumable });
      if (!resumable) connection.session = null;
    }
    return live.length;
  }

  /** Asks clients to heartbeat now (op 1 from the server). */
  requestHeartbeat(): void {
    for (const connection of this.connections.values()) {
      if (connection.open) this.send(connection, { op: OP.Heartbeat, d: connection.session?.seq ?? null });
    }
  }

  closeAll(): void {
    for (const connection of this.connections.values()) {
      if (connection.open) {
        connection.open = false;
        connection.ws.terminate();
      }
    }
    this.connections.clear();
  }

  private send(connection: GatewayConnection, payload: Json): void {
    if (!connection.open) return;
    this.config.record({
      direction: "out",
      connectionId: connection.id,
      sessionId: connection.session?.id ?? null,
      op: payload.op,
      t: payload.t ?? null,
      s: payload.s ?? null,
      d: payload.d ?? null,
    });
    connection.ws.send(JSON.stringify({ t: null, s: null, d: null, ...payload }));
  }

  private close(connection: GatewayConnection, code: number, reason: string): void {
    if (!connection.open) return;
    connection.open = false;
    this.config.record({
      direction: "out",
      connectionId: connection.id,
      sessionId: connection.session?.id ?? null,
      op: -1,
      t: "CLOSE",
      s: null,
      d: { code, reason },
    });
    connection.ws.close(code, reason);
  }
}

function redactToken(d: unknown): unknown {
  if (d && typeof d === "object" && "token" in d) return { ...(d as Json), token: "[redacted]" };
  return d;
}

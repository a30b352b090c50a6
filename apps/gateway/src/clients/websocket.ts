import type { Server, ServerWebSocket, WebSocketHandler } from "bun";
import type { ClientConnection, ClientHub } from "./hub.ts";
import { bearerToken, type ClientTokenRecord } from "./tokens.ts";

/** The client connection's route on the HTTP API. */
export const CLIENT_PATH = "/client";
/** Largest frame a client may send (a tool's result included); a larger one closes the connection (1009). */
export const MAX_CLIENT_FRAME_BYTES = 4 * 1024 * 1024;

interface SocketData {
  readonly token: string;
  readonly record: ClientTokenRecord;
  connection?: ClientConnection;
}

/** What the HTTP API needs to serve client connections: the upgrade and Bun's WebSocket handler. */
export interface ClientEndpoint {
  /** A response when the request is refused; undefined once upgraded. */
  upgrade(req: Request, server: Server<SocketData>): Response | undefined;
  readonly websocket: WebSocketHandler<SocketData>;
}

/**
 * WebSocket on `/client`, opened only with a client token (`Authorization: Bearer oac_…`): the
 * HTTP API's own token does not open it, and a client token opens nothing else.
 */
export function clientEndpoint(hub: ClientHub): ClientEndpoint {
  return {
    upgrade(req, server) {
      const token = bearerToken(req.headers.get("authorization"));
      const record = hub.authenticate(token);
      if (!token || !record)
        return new Response(
          JSON.stringify({
            error:
              "missing, wrong or revoked client token: send Authorization: Bearer <client token> (make one with `openassistant clients create <name>`)",
          }),
          {
            status: 401,
            headers: { "content-type": "application/json", "www-authenticate": 'Bearer realm="openassistant-client"' },
          },
        );
      if (req.headers.get("upgrade")?.toLowerCase() !== "websocket")
        return new Response(
          JSON.stringify({ error: `${CLIENT_PATH} is a WebSocket: connect with a WebSocket client` }),
          {
            status: 426,
            headers: { "content-type": "application/json", upgrade: "websocket" },
          },
        );
      return server.upgrade(req, { data: { token, record } })
        ? undefined
        : new Response(JSON.stringify({ error: "the WebSocket upgrade failed" }), { status: 400 });
    },
    websocket: {
      maxPayloadLength: MAX_CLIENT_FRAME_BYTES,
      idleTimeout: 120,
      sendPings: true,
      open(ws: ServerWebSocket<SocketData>) {
        ws.data.connection = hub.connect(
          { send: (text) => void ws.send(text), close: (code, reason) => ws.close(code, reason) },
          ws.data.token,
          ws.data.record,
        );
      },
      message(ws, frame) {
        ws.data.connection?.message(typeof frame === "string" ? frame : new TextDecoder().decode(frame));
      },
      close(ws) {
        ws.data.connection?.closed();
      },
    },
  };
}

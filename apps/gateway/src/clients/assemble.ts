import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import type { SecretSink } from "@openassistant/core/receipts";
import type { TurnOutcome } from "../agent/run-turn.ts";
import type { IncomingMessage } from "../conversations/service.ts";
import type { EventBus } from "../events/bus.ts";
import { resource } from "../services/resource.ts";
import type { GatewaySettings } from "../settings.ts";
import type { ToolSource } from "../tools-source.ts";
import { createClientHub, type ClientHub } from "./hub.ts";
import { CLIENT_NAMESPACE } from "./registration.ts";
import { openClientTokens } from "./tokens.ts";
import { clientEndpoint, type ClientEndpoint } from "./websocket.ts";

/**
 * The gateway's client sessions (#34), when the HTTP API is on: the hub (closed with the gateway's
 * scope: every session ends, its calls fail) and its WebSocket endpoint for the HTTP API.
 */
export function openClientSessions(o: {
  readonly settings: GatewaySettings;
  readonly events: Pick<EventBus, "subscribe">;
  readonly secrets: SecretSink;
  readonly toolSource: ToolSource;
  readonly handleMessage: (m: IncomingMessage) => Promise<TurnOutcome>;
  readonly log: (line: string) => void;
}): Effect.Effect<{ hub: ClientHub; endpoint: ClientEndpoint } | undefined, unknown, Scope.Scope> {
  if (!o.settings.http) return Effect.succeed(undefined);
  const open = () =>
    createClientHub({
      tokens: openClientTokens(o.settings.dataDir),
      policy: o.settings.policy,
      handleMessage: o.handleMessage,
      events: o.events,
      secrets: o.secrets,
      namespaceTaken: () => Object.hasOwn(o.toolSource.current().tree, CLIENT_NAMESPACE),
      ...(o.settings.clients?.graceMs !== undefined ? { graceMs: o.settings.clients.graceMs } : {}),
      log: o.log,
    });
  return Effect.map(
    resource("client sessions", open, (hub) => hub.close("the gateway is shutting down"), o.log),
    (hub) => ({ hub, endpoint: clientEndpoint(hub) }),
  );
}

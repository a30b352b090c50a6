import type { ApprovalBroker } from "@openassistant/core/approvals";
import type { SecretRegistry } from "@openassistant/core/receipts";
import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import { type ConsoleOptions, createConsole, type GatewayConsole } from "../console/index.ts";
import type { EventBus } from "../events/bus.ts";
import type { OtherGatewaysEvents } from "../events/other-gateways.ts";
import type { GatewayHttp } from "../gateway.ts";
import { startHttpApi } from "../http/server.ts";
import type { resolveHttpToken } from "../http/token.ts";
import type { RunControl } from "../runs/operator-control.ts";
import type { GatewaySettings } from "../settings.ts";
import type { GatewayStores } from "../storage/index.ts";
import type { ToolSource } from "../tools-source.ts";
import { resource } from "./resource.ts";
import type { ClientEndpoint } from "../clients/websocket.ts";

/** The operator console and the local HTTP API, when `http` is configured. */
export function httpAndConsole(o: {
  readonly settings: GatewaySettings;
  readonly stores: GatewayStores;
  readonly approvals: ApprovalBroker;
  readonly runs: RunControl;
  /** #33: what the console lists of the schedules. */
  readonly schedules?: ConsoleOptions["schedules"];
  /** #32: ability runs, for the console's pages. */
  readonly abilities?: ConsoleOptions["abilities"];
  readonly events: EventBus;
  /** The live events of the other gateways on a shared database, for the console's stream. */
  readonly otherGateways?: OtherGatewaysEvents;
  readonly toolSource: ToolSource;
  readonly redact: (text: string) => string;
  readonly secrets: SecretRegistry;
  readonly httpToken: ReturnType<typeof resolveHttpToken> | undefined;
  readonly health: () => { tools: number; activeTurns: number; shuttingDown: boolean };
  readonly log: (line: string) => void;
  /** #34: client connections on the HTTP API. */
  readonly clients?: ClientEndpoint;
}): Effect.Effect<{ http?: GatewayHttp; console?: GatewayConsole }, unknown, Scope.Scope> {
  return Effect.gen(function* () {
    const { settings, httpToken } = o;
    if (!settings.http) return {};
    let http: GatewayHttp | undefined;
    const consoleUi = yield* resource(
      "console",
      () =>
        createConsole({
          settings,
          receipts: o.stores.receipts,
          runCode: o.stores.runCode,
          runs: o.runs,
          ...(o.schedules ? { schedules: o.schedules } : {}),
          ...(o.abilities ? { abilities: o.abilities } : {}),
          approvals: o.approvals,
          events: o.events,
          ...(o.otherGateways ? { otherGateways: o.otherGateways } : {}),
          tools: () => o.toolSource.current(),
          redact: o.redact,
          secrets: o.secrets,
          localUrl: () => http?.url ?? "",
        }),
      (c) => c.close(),
      o.log,
    );
    if (!httpToken) return { console: consoleUi };
    const api = yield* resource(
      "HTTP API",
      () =>
        startHttpApi({
          port: settings.http!.port,
          hostname: settings.http!.host,
          console: consoleUi,
          token: httpToken.token,
          receipts: o.stores.receipts,
          events: o.events,
          health: o.health,
          ...(o.clients ? { clients: o.clients } : {}),
        }),
      (server) => server.close(),
      o.log,
    );
    http = { ...api, token: httpToken.token, tokenCreated: httpToken.created, tokenPath: httpToken.path };
    return { http, console: consoleUi };
  });
}

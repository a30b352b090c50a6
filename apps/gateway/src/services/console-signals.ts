import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import type { EventBus } from "../events/bus.ts";
import { eventsFromOtherGateways, forwardToOtherGateways, type OtherGatewaysEvents } from "../events/other-gateways.ts";
import type { GatewayStores } from "../storage/index.ts";
import { resource } from "./resource.ts";

/**
 * On a shared database (docs/scaling.md): this gateway's live events reach the other gateways'
 * consoles, and theirs reach its console (the returned feed). Nothing on SQLite.
 */
export function shareConsoleEvents(o: {
  readonly stores: GatewayStores;
  readonly events: EventBus;
  readonly log: (line: string) => void;
}): Effect.Effect<OtherGatewaysEvents | undefined, unknown, Scope.Scope> {
  return Effect.gen(function* () {
    const channel = o.stores.consoleSignals;
    if (!channel) return undefined;
    const receipts = o.stores.receipts;
    yield* resource(
      "console events to other gateways",
      () => forwardToOtherGateways({ events: o.events, channel, durable: () => receipts.durable(), log: o.log }),
      (stop) => stop(),
      o.log,
    );
    return yield* resource(
      "console events from other gateways",
      () => eventsFromOtherGateways(channel, o.log),
      (feed) => feed.close(),
      o.log,
    );
  });
}

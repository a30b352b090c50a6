import type { EventBus } from "./bus.ts";
import type { GatewayEvent } from "./types.ts";

/**
 * The events the console's pages react to (`console/static/live.js` listens to exactly these):
 * the ones that reach the console of every gateway on a shared database, whichever produced them.
 */
export const CONSOLE_LIVE_TYPES = [
  "call.settled",
  "run.started",
  "run.finished",
  "approval.requested",
  "approval.decided",
] as const satisfies ReadonlyArray<GatewayEvent["type"]>;

export type ConsoleLiveType = (typeof CONSOLE_LIVE_TYPES)[number];

/**
 * What crosses between gateways: which kinds of thing changed, nothing else. The console's stream
 * sends only the kind anyway (its pages fetch what they show from the shared store), so no input,
 * output, code or text ever leaves the gateway that produced it.
 */
export interface LiveSignal {
  readonly types: readonly ConsoleLiveType[];
}

/** A channel between the gateways of one database (PostgreSQL's LISTEN/NOTIFY; absent on SQLite). */
export interface LiveSignalChannel {
  publish(signal: LiveSignal): Promise<void>;
  /** `onSignal` gets the signals of the other gateways (not this one's); resolves to the unsubscribe. */
  subscribe(onSignal: (signal: LiveSignal) => void): Promise<() => Promise<void>>;
}

const isLiveType = (type: unknown): type is ConsoleLiveType =>
  (CONSOLE_LIVE_TYPES as readonly unknown[]).includes(type);

/**
 * Tells the other gateways which live kinds of event happened here. Coalesced: one signal in
 * flight at a time, carrying every kind seen since the last one (a busy gateway sends a few signals
 * a second, not one per call). A signal waits for `durable()` (the receipts staged so far
 * committed), so a console refreshing on it reads what the event announced. Returns the stop,
 * which lets the signal under way finish.
 */
export function forwardToOtherGateways(o: {
  readonly events: Pick<EventBus, "subscribe">;
  readonly channel: Pick<LiveSignalChannel, "publish">;
  readonly durable: () => Promise<void>;
  readonly log: (line: string) => void;
}): () => Promise<void> {
  const seen = new Set<ConsoleLiveType>();
  let sending: Promise<void> | undefined;
  const sendSoon = () =>
    (sending ??= (async () => {
      try {
        await Promise.resolve(); // the kinds emitted in this task join the first signal
        while (seen.size > 0) {
          // Taken before `durable()`: every kind sent was emitted before that commit was asked for.
          const types = [...seen];
          seen.clear();
          await o.durable().catch(() => {}); // a refused commit is reported where it was staged
          await o.channel
            .publish({ types })
            .catch((e: unknown) =>
              o.log(`could not tell the other gateways' consoles about ${types.join(", ")}: ${(e as Error).message}`),
            );
        }
      } finally {
        sending = undefined;
      }
    })());
  const unsubscribe = o.events.subscribe((e) => {
    if (!isLiveType(e.type)) return;
    seen.add(e.type);
    void sendSoon();
  });
  return async () => {
    unsubscribe();
    await sending;
  };
}

/** The live kinds other gateways signal, for this gateway's console streams. */
export interface OtherGatewaysEvents {
  subscribe(listener: (type: ConsoleLiveType) => void): () => void;
}

/**
 * Subscribes once to the channel and hands each kind another gateway signalled to this gateway's
 * listeners (each open console stream). A signal is data from the database: only the known kinds
 * in it are passed on, anything else in it is dropped.
 */
export async function eventsFromOtherGateways(
  channel: Pick<LiveSignalChannel, "subscribe">,
  log: (line: string) => void,
): Promise<OtherGatewaysEvents & { close(): Promise<void> }> {
  const listeners = new Set<(type: ConsoleLiveType) => void>();
  const stop = await channel.subscribe((signal) => {
    const types = Array.isArray(signal?.types) ? new Set(signal.types.filter(isLiveType)) : new Set<ConsoleLiveType>();
    for (const type of types)
      for (const listener of [...listeners]) {
        try {
          listener(type);
        } catch (e) {
          log(`a console stream failed on "${type}" from another gateway: ${(e as Error).message}`);
        }
      }
  });
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    async close() {
      listeners.clear();
      await stop();
    },
  };
}

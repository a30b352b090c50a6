import type { Postgres } from "./connect.ts";

/**
 * Events across the gateways of one database (what the console streams, issue 31), on PostgreSQL's
 * LISTEN/NOTIFY through Bun's client (`sql.listen` keeps one connection for it and reconnects and
 * re-subscribes on its own). Each event carries the publishing gateway's id (`origin`); a
 * subscriber leaves out its own gateway's events by default, since those reach it locally.
 * Published on a transaction (`publish(event, tx)`), an event is delivered on COMMIT and dropped
 * on ROLLBACK, so it can go out with the receipts it announces.
 */
export interface EventBus<E> {
  /** This gateway's id in the events it publishes. */
  readonly origin: string;
  publish(event: E, tx?: Postgres): Promise<void>;
  subscribe(
    onEvent: (event: E, origin: string) => void,
    options?: { readonly own?: boolean },
  ): Promise<{ close(): Promise<void> }>;
}

/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more (the NOTIFY reference page). */
export const NOTIFY_PAYLOAD_LIMIT = 7999;

export function openEventBus<E>(
  sql: Postgres,
  channel: string,
  options: { readonly origin?: string } = {},
): EventBus<E> {
  const origin = options.origin ?? `gw_${crypto.randomUUID().slice(0, 8)}`;
  return {
    origin,
    async publish(event, tx) {
      const payload = JSON.stringify({ o: origin, e: event });
      const bytes = Buffer.byteLength(payload, "utf8");
      if (bytes > NOTIFY_PAYLOAD_LIMIT)
        throw new RangeError(
          `event on "${channel}" is ${bytes} bytes, over PostgreSQL's NOTIFY limit of ${NOTIFY_PAYLOAD_LIMIT}: publish its id and let subscribers read the rest from the database`,
        );
      await (tx ?? sql).notify(channel, payload);
    },
    async subscribe(onEvent, opts = {}) {
      const subscription = await sql.listen(channel, (payload) => {
        let message: { o?: unknown; e?: unknown };
        try {
          message = JSON.parse(payload);
        } catch {
          return; // not one of ours: someone else NOTIFYs on this channel
        }
        if (typeof message?.o !== "string" || !("e" in message)) return;
        if (message.o === origin && opts.own !== true) return;
        onEvent(message.e as E, message.o);
      });
      return { close: () => subscription.unlisten() };
    },
  };
}

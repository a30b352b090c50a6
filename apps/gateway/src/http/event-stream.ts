/**
 * A server-sent-events response that forwards gateway events as `frame(e)` text, with a
 * keep-alive comment. `open` tracks the live streams so the server can end them on close.
 */
export function eventStreamResponse<E extends { readonly type: string }>(
  req: Request,
  opts: {
    readonly events: { subscribe(listener: (e: E) => void): () => void };
    readonly frame: (e: E) => string;
    readonly keepAliveMs: number;
    readonly open: Set<() => void>;
  },
): Response {
  const encoder = new TextEncoder();
  let cleanup = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          cleanup();
        }
      };
      send(": connected\n\n");
      const unsubscribe = opts.events.subscribe((e) => send(opts.frame(e)));
      const keepAlive = setInterval(() => send(": keep-alive\n\n"), opts.keepAliveMs);
      cleanup = () => {
        clearInterval(keepAlive);
        unsubscribe();
        opts.open.delete(cleanup);
        try {
          controller.close();
        } catch {
          // already closed
        }
      };
      opts.open.add(cleanup);
      req.signal.addEventListener("abort", () => cleanup(), { once: true });
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-store", connection: "keep-alive" },
  });
}

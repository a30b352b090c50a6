/**
 * Bytes of one message from an MCP server over HTTP (a JSON response, or one server-sent event).
 * The SDK parses each message whole on the gateway's thread (JSON.parse, then its zod schema):
 * a hostile `tools/list` of hundreds of megabytes would hold the event loop for seconds. 8 MB is
 * more than 5,000 tools at the schema limits need.
 */
export const MCP_MESSAGE_BYTES = 8 * 1024 * 1024;

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * `inner`, with each response body cut off (the stream errors, naming the server and the limit)
 * once one message passes `limit` bytes: the whole body for JSON, the bytes between blank lines
 * for an event stream (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation).
 */
export function capMessages(server: string, inner: Fetch, limit = MCP_MESSAGE_BYTES): Fetch {
  return async (url, init) => {
    const res = await inner(url, init);
    if (!res.body) return res;
    const events = (res.headers.get("content-type") ?? "").includes("text/event-stream");
    let run = 0;
    let previous = -1;
    const body = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (!events) run += chunk.byteLength;
          else {
            // "\n\n" ends an event; "\r" is left out of the count, so "\r\n\r\n" ends one too.
            // Line by line (indexOf), not byte by byte: a chunk of megabytes is a native scan.
            let from = 0;
            for (let lf = chunk.indexOf(10); lf !== -1; lf = chunk.indexOf(10, from)) {
              const line = chunk.subarray(from, lf);
              const crs = carriageReturns(line);
              if (previous === 10 && crs === line.length) run = 0;
              else run += line.length - crs + 1;
              previous = 10;
              from = lf + 1;
            }
            const rest = chunk.subarray(from);
            const crs = carriageReturns(rest);
            run += rest.length - crs;
            if (crs < rest.length) previous = lastNotCarriageReturn(rest);
          }
          if (run <= limit) return controller.enqueue(chunk);
          const message = `MCP server "${server}" sent a message of more than ${limit} bytes; it is not read`;
          const ids = requestIds(init?.body);
          // The SDK reads an event stream on its own and would leave the request waiting: answer
          // each request of this POST with a JSON-RPC error instead, after ending the cut event.
          if (!events || ids.length === 0) return controller.error(new Error(message));
          const answers = ids.map(
            (id) =>
              `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32600, message } })}\n\n`,
          );
          controller.enqueue(new TextEncoder().encode(`\n\n${answers.join("")}`));
          controller.terminate();
        },
      }),
    );
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

function carriageReturns(bytes: Uint8Array): number {
  let n = 0;
  for (let at = bytes.indexOf(13); at !== -1; at = bytes.indexOf(13, at + 1)) n++;
  return n;
}

function lastNotCarriageReturn(bytes: Uint8Array): number {
  for (let i = bytes.length - 1; i >= 0; i--) if (bytes[i] !== 13) return bytes[i]!;
  return 13;
}

/** The ids of the JSON-RPC requests in a POST body (one message or a batch). */
function requestIds(body: unknown): Array<string | number> {
  if (typeof body !== "string") return [];
  try {
    const parsed = JSON.parse(body) as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed])
      .map((m) => (m as { id?: unknown } | null)?.id)
      .filter((id): id is string | number => typeof id === "string" || typeof id === "number");
  } catch {
    return [];
  }
}

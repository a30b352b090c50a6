import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { allItems, runOffThread } from "../source-thread.ts";
import type { ListingHead } from "./listing.ts";

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** The `_meta` key of a listing the source worker holds the tools of (listing.ts sets it). */
export const LISTING_META = "openassistant/off-thread-listing";

/**
 * Characters of one message the SDK may still parse on the gateway's thread (`JSON.parse`, then
 * its zod schema): well under a millisecond. A larger answer to `tools/list` is parsed and checked
 * on the source worker (listing.ts), and its tools come back in bounded chunks.
 */
export const ON_THREAD_CHARS = 64 * 1024;

/**
 * One connection's `tools/list` answers over HTTP larger than `ON_THREAD_CHARS`, handed to the
 * source worker: a JSON body whole, an event stream event by event (the events before and after
 * it pass as they come, in order). The SDK gets the answer with no tools and the job's id in
 * `_meta`; `tools(page)` reads them from the worker. Only jobs this object started are read, so a
 * server cannot name another source's job in its own `_meta`.
 */
export class OffThreadListings {
  /** Job id → tools held for it. */
  private readonly issued = new Map<number, number>();

  constructor(private readonly server: string) {}

  fetch(inner: Fetch): Fetch {
    return async (url, init) => {
      const res = await inner(url, init);
      const requestId = listingRequestId(init?.body);
      if (requestId === undefined || !res.body || !res.ok) return res;
      const type = res.headers.get("content-type") ?? "";
      // The bytes cross to the worker as they are (transferred, not copied or decoded here).
      const reduce = async (bytes: Uint8Array<ArrayBuffer>, events: boolean): Promise<Uint8Array> => {
        if (bytes.byteLength <= ON_THREAD_CHARS) return bytes;
        const job = await runOffThread<ListingHead>(
          { kind: "mcp-listing", input: { bytes, events, requestId, server: this.server } },
          [bytes.buffer],
        );
        this.issued.set(job.id, job.count);
        return new TextEncoder().encode(job.head.text);
      };
      const rebuilt = (body: Uint8Array | ReadableStream<Uint8Array>) =>
        new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
      if (type.includes("application/json"))
        return rebuilt(await reduce(new Uint8Array(await res.arrayBuffer()), false));
      if (!type.includes("text/event-stream")) return res;
      return rebuilt(res.body.pipeThrough(eventsReduced(reduce)));
    };
  }

  /**
   * The same for a stdio server, whose messages the SDK reads from the process itself: its
   * `ReadBuffer` (one JSON-RPC message a line, at most `maxBytes` buffered) is replaced by one
   * that hands a line past `ON_THREAD_CHARS`, while a `tools/list` request is open, to the source
   * worker, and keeps the lines after it until it is back, so messages stay in order.
   */
  stdio(transport: StdioTransportInternals, maxBytes: number, deserialize: (line: string) => unknown): void {
    const open = new Set<string | number>();
    const send = transport.send.bind(transport);
    transport.send = (message, ...rest) => {
      const m = message as { method?: unknown; id?: unknown };
      if (m.method === "tools/list" && (typeof m.id === "string" || typeof m.id === "number")) open.add(m.id);
      return send(message, ...rest);
    };
    transport._readBuffer = new OffThreadReadBuffer(
      maxBytes,
      deserialize,
      open,
      async (bytes, requestId) => {
        const job = await runOffThread<ListingHead>(
          { kind: "mcp-listing", input: { bytes, events: false, requestId, server: this.server, others: "keep" } },
          [bytes.buffer],
        );
        if (job.head.answered) this.issued.set(job.id, job.count);
        return job.head.answered ? job.head.text : undefined;
      },
      () => transport.processReadBuffer(),
    );
  }

  /** A page's tools: the page's own, or those the source worker holds for it. */
  async tools(page: { tools: Tool[]; _meta?: Record<string, unknown> }): Promise<Tool[]> {
    const job = (page._meta?.[LISTING_META] as { job?: unknown } | undefined)?.job;
    const count = typeof job === "number" ? this.issued.get(job) : undefined;
    if (typeof job !== "number" || count === undefined) return page.tools;
    this.issued.delete(job);
    return allItems<Tool>(job, count);
  }
}

/**
 * An event stream, each event (up to and with the blank line that ends it) passed through
 * `reduce`. Ends are found as the message cap finds them (message-cap.ts: "\n\n", carriage
 * returns ignored), by a native scan for line feeds; an event's bytes are joined once, at its end.
 */
function eventsReduced(
  reduce: (event: Uint8Array<ArrayBuffer>, events: true) => Promise<Uint8Array>,
): TransformStream<Uint8Array, Uint8Array> {
  let parts: Uint8Array[] = [];
  let previous = -1;
  const flushEvent = async (controller: TransformStreamDefaultController<Uint8Array>) => {
    const event = joinBytes(parts);
    parts = [];
    if (event.byteLength > 0) controller.enqueue(await reduce(event, true));
  };
  return new TransformStream<Uint8Array, Uint8Array>({
    async transform(chunk, controller) {
      let from = 0;
      let lineStart = 0;
      for (let lf = chunk.indexOf(10); lf !== -1; lf = chunk.indexOf(10, lineStart)) {
        const blank = previous === 10 && onlyCarriageReturns(chunk, lineStart, lf);
        previous = 10;
        lineStart = lf + 1;
        if (!blank) continue;
        parts.push(chunk.subarray(from, lineStart));
        from = lineStart;
        await flushEvent(controller);
      }
      for (let i = chunk.length - 1; i >= lineStart; i--)
        if (chunk[i] !== 13) {
          previous = chunk[i]!;
          break;
        }
      if (from < chunk.length) parts.push(chunk.subarray(from));
    },
    async flush(controller) {
      await flushEvent(controller);
    },
  });
}

function onlyCarriageReturns(bytes: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (bytes[i] !== 13) return false;
  return true;
}

function joinBytes(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** The id of the POST body's request when it is one `tools/list` request. */
function listingRequestId(body: unknown): string | number | undefined {
  if (typeof body !== "string" || body.length > ON_THREAD_CHARS) return undefined;
  try {
    const m = JSON.parse(body) as { method?: unknown; id?: unknown } | null;
    if (m?.method !== "tools/list") return undefined;
    return typeof m.id === "string" || typeof m.id === "number" ? m.id : undefined;
  } catch {
    return undefined;
  }
}

/** What `OffThreadListings.stdio` reaches inside the SDK's `StdioClientTransport` (1.32: `_readBuffer`, `processReadBuffer`). */
export interface StdioTransportInternals {
  send(message: unknown, ...rest: never[]): Promise<void>;
  _readBuffer: unknown;
  processReadBuffer(): void;
}

/**
 * The SDK's `ReadBuffer` contract (append, readMessage, clear), with its size limit and error
 * text, and a line past `ON_THREAD_CHARS` read on the source worker while a `tools/list` is open.
 */
class OffThreadReadBuffer {
  /** Bytes received and not yet read, as received: joined once per line, not once per chunk (the SDK's is quadratic). */
  private parts: Buffer[] = [];
  private size = 0;
  /** How many of `parts` are known to hold no line feed. */
  private scanned = 0;
  /** Read off this thread, waiting to be handed out in order. */
  private ready: Array<{ message: unknown } | { error: unknown }> = [];
  private away = false;
  private generation = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly deserialize: (line: string) => unknown,
    private readonly openListings: Set<string | number>,
    private readonly offThread: (
      bytes: Uint8Array<ArrayBuffer>,
      requestId: string | number,
    ) => Promise<string | undefined>,
    private readonly wake: () => void,
  ) {}

  append(chunk: Buffer): void {
    if (this.size + chunk.length > this.maxBytes) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.maxBytes} bytes`);
    }
    this.parts.push(chunk);
    this.size += chunk.length;
  }

  readMessage(): unknown {
    const done = this.ready.shift();
    if (done) {
      if ("error" in done) throw done.error;
      return done.message;
    }
    if (this.away) return null;
    const line = this.nextLine();
    if (!line) return null;
    const requestId = [...this.openListings].at(-1);
    if (line.length <= ON_THREAD_CHARS || requestId === undefined) return this.parse(line);
    // A copy the worker owns; the original is read here if it is not the listing's answer.
    const bytes = new Uint8Array(line);
    this.away = true;
    const generation = this.generation;
    void this.offThread(bytes, requestId)
      .then((text) => (text === undefined ? this.parse(line) : this.deserialize(text)))
      .then(
        (message) => ({ message }),
        (error: unknown) => ({ error }),
      )
      .then((result) => {
        if (generation !== this.generation) return;
        this.openListings.delete(requestId);
        this.ready.push(result);
        this.away = false;
        this.wake();
      });
    return null;
  }

  clear(): void {
    this.parts = [];
    this.size = 0;
    this.scanned = 0;
    this.ready = [];
    this.away = false;
    this.generation++;
  }

  /** The bytes up to the next line feed (without it), taken out of the buffer; undefined before one has come. */
  private nextLine(): Buffer | undefined {
    for (let i = this.scanned; i < this.parts.length; i++) {
      const part = this.parts[i]!;
      const end = part.indexOf(10);
      if (end === -1) continue;
      const line = Buffer.concat([...this.parts.slice(0, i), part.subarray(0, end)]);
      const rest = part.subarray(end + 1);
      this.parts = [...(rest.length > 0 ? [rest] : []), ...this.parts.slice(i + 1)];
      this.size -= line.length + 1;
      this.scanned = 0;
      return line;
    }
    this.scanned = this.parts.length;
    return undefined;
  }

  private parse(line: Buffer): unknown {
    const message = this.deserialize(line.toString("utf8").replace(/\r$/, "")) as { id?: unknown; method?: unknown };
    // An answer read here closes its listing (a request to this client has a method).
    if (message.method === undefined && (typeof message.id === "string" || typeof message.id === "number"))
      this.openListings.delete(message.id);
    return message;
  }
}

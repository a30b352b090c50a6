import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { allItems, runOffThread } from "../source-thread.ts";
import { LISTING_META, type ListingHead } from "./listing.ts";

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * Characters of one message the SDK may still parse on the gateway's thread (`JSON.parse`, then
 * its zod schema): well under a millisecond. A larger answer to `tools/list` is parsed and checked
 * on the source worker (listing.ts), and its tools come back in bounded chunks.
 */
export const ON_THREAD_CHARS = 64 * 1024;

/**
 * `inner`, with each answer to a `tools/list` request over HTTP larger than `ON_THREAD_CHARS`
 * handed to the source worker: a JSON body whole, an event stream event by event (the events
 * before and after it pass as they come, in order).
 */
export function listingsOffThread(server: string, inner: Fetch): Fetch {
  return async (url, init) => {
    const res = await inner(url, init);
    const requestId = listingRequestId(init?.body);
    if (requestId === undefined || !res.body || !res.ok) return res;
    const type = res.headers.get("content-type") ?? "";
    const reduce = async (text: string, events: boolean): Promise<string> => {
      if (text.length <= ON_THREAD_CHARS) return text;
      const job = await runOffThread<ListingHead>({ kind: "mcp-listing", input: { text, events, requestId, server } });
      return job.head.text;
    };
    const rebuilt = (body: string | ReadableStream<Uint8Array>) =>
      new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    if (type.includes("application/json")) return rebuilt(await reduce(await res.text(), false));
    if (!type.includes("text/event-stream")) return res;
    return rebuilt(
      res.body
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(eventsReduced(reduce))
        .pipeThrough(new TextEncoderStream()),
    );
  };
}

/** An event stream, each event passed through `reduce` (which sees it without its blank line). */
function eventsReduced(reduce: (event: string, events: true) => Promise<string>): TransformStream<string, string> {
  let pending = "";
  return new TransformStream<string, string>({
    async transform(chunk, controller) {
      pending += chunk;
      // The end of an event: a blank line, in any of the stream's three line endings.
      const eventEnd = /\r\n\r\n|\n\n|\r\r/g;
      let from = 0;
      for (let end = eventEnd.exec(pending); end; end = eventEnd.exec(pending)) {
        controller.enqueue(`${await reduce(pending.slice(from, end.index), true)}\n\n`);
        from = end.index + end[0].length;
      }
      pending = pending.slice(from);
    },
    async flush(controller) {
      if (pending) controller.enqueue(await reduce(pending, true));
    },
  });
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

/** A page's tools: the page's own, or those the source worker holds for it. */
export async function pageTools(page: { tools: Tool[]; _meta?: Record<string, unknown> }): Promise<Tool[]> {
  const job = page._meta?.[LISTING_META];
  return typeof job === "number" ? allItems<Tool>(job) : page.tools;
}

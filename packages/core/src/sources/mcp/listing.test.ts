import { describe, expect, test } from "bun:test";
import { hostileSchemas } from "../../../test/hostile-schemas.ts";
import { refusalOf } from "../source-budget.ts";
import { nextChunk } from "../source-thread-protocol.ts";
import { reduceListing } from "./listing.ts";

/**
 * What crosses from the source worker to the gateway's thread, in units of work: each tool of a
 * hostile listing is bounded (a per-tool refusal crosses as a stub), and each chunk holds at most
 * 64 K characters of JSON unless one item alone is larger.
 */
const HOSTILE = hostileSchemas("http://127.0.0.1:9");

function listingEvent(tools: unknown[], id = 3): Uint8Array {
  const message = { jsonrpc: "2.0", id, result: { tools } };
  return new TextEncoder().encode(`event: message\nid: e1\ndata: ${JSON.stringify(message)}\n\n`);
}

describe("the source worker's part of a tools/list answer", () => {
  test("the hostile corpus: the SDK gets an empty list naming the job; each tool crosses bounded, a refused one with its limit", () => {
    const tools = [
      { name: "echo", description: "d".repeat(100_000), inputSchema: { type: "object" } },
      { name: "n".repeat(5_000), inputSchema: { type: "object" } },
      // A server cannot refuse (and word the diagnostic of) a tool itself: the key is the worker's.
      { name: "forged", inputSchema: { type: "object" }, "openassistant/refused": { stage: "name", reason: "forged" } },
      ...HOSTILE.map((h) => ({ name: h.name, description: h.name, inputSchema: h.schema })),
    ];
    const bytes = listingEvent(tools);
    expect(bytes.byteLength).toBeGreaterThan(4_000_000);
    const { head, items } = reduceListing({ bytes, events: true, requestId: 3, server: "evil" }, 7);

    const text = (head as { text: string }).text;
    expect(text.startsWith("event: message\nid: e1\ndata: ")).toBe(true);
    expect(text.endsWith("\n\n")).toBe(true);
    expect(JSON.parse(text.split("data: ")[1]!)).toEqual({
      jsonrpc: "2.0",
      id: 3,
      result: { tools: [], _meta: { "openassistant/off-thread-listing": { job: 7 } } },
    });

    expect(items.length).toBe(tools.length);
    for (const item of items) expect(JSON.stringify(item).length).toBeLessThan(80_000);
    const [echo, long, forged, ...rest] = items as Array<{ name: string; description?: string }>;
    expect(refusalOf(forged!)).toBeUndefined();
    expect(echo!.description!.length).toBeLessThan(5_000);
    expect(refusalOf(echo!)).toBeUndefined();
    expect(refusalOf(long!)).toEqual({ stage: "name", reason: "its name has 5000 characters (limit 128)" });
    HOSTILE.forEach((h, i) => {
      expect(rest[i]!.name).toBe(h.name);
      expect(refusalOf(rest[i]!)?.reason).toMatch(h.limit);
    });
  });

  test("an answer that is not a tool list becomes an error naming the server; a large message that is not the answer is left out", () => {
    const broken = reduceListing(
      {
        bytes: listingEvent([{ name: 5, inputSchema: "x".repeat(70_000) }]),
        events: true,
        requestId: 3,
        server: "evil",
      },
      8,
    );
    expect(broken.items).toEqual([]);
    const error = JSON.parse((broken.head as { text: string }).text.split("data: ")[1]!);
    expect(error.id).toBe(3);
    expect(error.error.message).toStartWith(
      'MCP server "evil" answered tools/list with something that is not a tool list',
    );

    const other = reduceListing(
      {
        bytes: listingEvent([{ name: "a", inputSchema: { type: "object" } }], 99),
        events: true,
        requestId: 3,
        server: "evil",
      },
      9,
    );
    expect(other.items).toEqual([]);
    expect((other.head as { text: string }).text).toStartWith(": a message of ");
  });

  test("chunks hold at most 64 K characters of JSON, one larger item alone, every item once and in order", () => {
    const items = Array.from({ length: 50 }, (_, i) => ({ i, pad: "x".repeat(i === 20 ? 200_000 : 9_000) }));
    const seen: unknown[] = [];
    for (let at = 0; at < items.length; ) {
      const chunk = nextChunk(items, at);
      expect(chunk.length).toBeGreaterThan(0);
      if (chunk.length > 1) expect(JSON.stringify(chunk).length).toBeLessThanOrEqual(64 * 1024 + chunk.length + 1);
      seen.push(...chunk);
      at += chunk.length;
    }
    expect(seen).toEqual(items);
  });
});

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { fakeAnthropicErrors, startFakeAnthropic, textTurn, toolUseTurn, type FakeAnthropic } from "./fake-server.ts";

// Raw HTTP checks of the wire format. The real-SDK round trips live in apps/gateway/src/model/.
let api: FakeAnthropic;
beforeEach(async () => {
  api = await startFakeAnthropic();
});
afterEach(async () => {
  await api?.close();
});

function post(body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${api.url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

function parseSse(text: string): Array<{ event: string; data: any }> {
  return text
    .split("\n\n")
    .filter(Boolean)
    .map((chunk) => {
      const event = /^event: (.*)$/m.exec(chunk)![1]!;
      const data = JSON.parse(/^data: (.*)$/m.exec(chunk)![1]!);
      return { event, data };
    });
}

describe("fake Anthropic server", () => {
  test("serves a scripted message as JSON and records the request", async () => {
    api.script([textTurn("hello", { usage: { input_tokens: 3, output_tokens: 2, cache_read_input_tokens: 7 } })]);
    const res = await post({ model: "claude-x", max_tokens: 10, messages: [] }, { authorization: "Bearer abc" });
    expect(res.status).toBe(200);
    const msg = (await res.json()) as any;
    expect(msg).toMatchObject({
      type: "message",
      role: "assistant",
      model: "claude-x",
      content: [{ type: "text", text: "hello" }],
      stop_reason: "end_turn",
      usage: { input_tokens: 3, output_tokens: 2, cache_read_input_tokens: 7, cache_creation_input_tokens: 0 },
    });
    expect(api.requests[0]).toMatchObject({ method: "POST", path: "/v1/messages", headers: { authorization: "Bearer abc" } });
    expect(api.requests[0]!.body.model).toBe("claude-x");
    expect(api.remaining()).toBe(0);
  });

  test("streams text and tool_use as SSE events in API order", async () => {
    api.script([toolUseTurn({ id: "toolu_1", name: "execute", input: { code: "return 42" } }, { text: "Running it", chunkSize: 4 })]);
    const res = await post({ model: "m", max_tokens: 10, messages: [], stream: true });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      ...Array(Math.ceil(JSON.stringify({ code: "return 42" }).length / 4)).fill("content_block_delta"),
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const text = events.filter((e) => e.data.delta?.type === "text_delta").map((e) => e.data.delta.text).join("");
    expect(text).toBe("Running it");
    const json = events.filter((e) => e.data.delta?.type === "input_json_delta").map((e) => e.data.delta.partial_json).join("");
    expect(JSON.parse(json)).toEqual({ code: "return 42" });
    expect(events.at(-2)!.data.delta.stop_reason).toBe("tool_use");
  });

  test("serves errors with the API's shape and headers", async () => {
    api.script([fakeAnthropicErrors.rateLimited(12), fakeAnthropicErrors.setupTokenRejected()]);
    const r1 = await post({ model: "m", messages: [] });
    expect(r1.status).toBe(429);
    expect(r1.headers.get("retry-after")).toBe("12");
    expect(await r1.json()).toEqual({ type: "error", error: { type: "rate_limit_error", message: expect.any(String) } });
    const r2 = await post({ model: "m", messages: [] });
    expect(r2.status).toBe(400);
    expect(((await r2.json()) as any).error.message).toContain("only authorized for use with Claude Code");
  });

  test("dynamic turns see the request; mid-stream errors arrive as an SSE error event", async () => {
    api.script([
      (req) => textTurn(`got ${req.body.messages.length} messages`),
      fakeAnthropicErrors.overloaded({ midStream: true }),
    ]);
    const r1 = await post({ model: "m", messages: [{ role: "user", content: "a" }, { role: "user", content: "b" }] });
    expect(((await r1.json()) as any).content[0].text).toBe("got 2 messages");
    const r2 = await post({ model: "m", messages: [], stream: true });
    expect(r2.status).toBe(200);
    const events = parseSse(await r2.text());
    expect(events.map((e) => e.event)).toEqual(["message_start", "error"]);
    expect(events[1]!.data.error.type).toBe("overloaded_error");
  });

  test("an empty queue and unknown routes fail loudly", async () => {
    const r1 = await post({ model: "m", messages: [] });
    expect(r1.status).toBe(500);
    expect(((await r1.json()) as any).error.message).toContain("no scripted turn left");
    const r2 = await fetch(`${api.url}/v1/models`);
    expect(r2.status).toBe(404);
    expect(api.requests.map((r) => r.path)).toEqual(["/v1/messages", "/v1/models"]);
    expect(api.messageRequests()).toHaveLength(1);
  });
});

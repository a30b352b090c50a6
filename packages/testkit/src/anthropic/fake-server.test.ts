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

const HI = [{ role: "user", content: "hi" }];

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
    const res = await post(
      { model: "claude-haiku-4-5", max_tokens: 10, messages: HI },
      { authorization: "Bearer abc" },
    );
    expect(res.status).toBe(200);
    const msg = (await res.json()) as any;
    expect(msg).toMatchObject({
      type: "message",
      role: "assistant",
      model: "claude-haiku-4-5",
      content: [{ type: "text", text: "hello" }],
      stop_reason: "end_turn",
      usage: { input_tokens: 3, output_tokens: 2, cache_read_input_tokens: 7, cache_creation_input_tokens: 0 },
    });
    expect(api.requests[0]).toMatchObject({
      method: "POST",
      path: "/v1/messages",
      headers: { authorization: "Bearer abc" },
    });
    expect(api.requests[0]!.body.model).toBe("claude-haiku-4-5");
    expect(api.remaining()).toBe(0);
  });

  test("streams text and tool_use as SSE events in API order", async () => {
    api.script([
      toolUseTurn(
        { id: "toolu_1", name: "execute", input: { code: "return 42" } },
        { text: "Running it", chunkSize: 4 },
      ),
    ]);
    const res = await post({ model: "claude-haiku-4-5", max_tokens: 10, messages: HI, stream: true });
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
    const text = events
      .filter((e) => e.data.delta?.type === "text_delta")
      .map((e) => e.data.delta.text)
      .join("");
    expect(text).toBe("Running it");
    const json = events
      .filter((e) => e.data.delta?.type === "input_json_delta")
      .map((e) => e.data.delta.partial_json)
      .join("");
    expect(JSON.parse(json)).toEqual({ code: "return 42" });
    expect(events.at(-2)!.data.delta.stop_reason).toBe("tool_use");
  });

  test("serves errors with the API's shape and headers", async () => {
    api.script([fakeAnthropicErrors.rateLimited(12), fakeAnthropicErrors.setupTokenRejected()]);
    const r1 = await post({ model: "claude-haiku-4-5", max_tokens: 10, messages: HI });
    expect(r1.status).toBe(429);
    expect(r1.headers.get("retry-after")).toBe("12");
    expect(await r1.json()).toEqual({
      type: "error",
      error: { type: "rate_limit_error", message: expect.any(String) },
      request_id: expect.stringMatching(/^req_/),
    });
    expect(r1.headers.get("request-id")).toMatch(/^req_/);
    const r2 = await post({ model: "claude-haiku-4-5", max_tokens: 10, messages: HI });
    expect(r2.status).toBe(400);
    expect(((await r2.json()) as any).error.message).toContain("only authorized for use with Claude Code");
  });

  test("dynamic turns see the request; mid-stream errors arrive as an SSE error event", async () => {
    api.script([
      (req) => textTurn(`got ${req.body.messages.length} messages`),
      fakeAnthropicErrors.overloaded({ midStream: true }),
    ]);
    const r1 = await post({
      model: "claude-haiku-4-5",
      max_tokens: 10,
      messages: [
        { role: "user", content: "a" },
        { role: "user", content: "b" },
      ],
    });
    expect(((await r1.json()) as any).content[0].text).toBe("got 2 messages");
    const r2 = await post({ model: "claude-haiku-4-5", max_tokens: 10, messages: HI, stream: true });
    expect(r2.status).toBe(200);
    const events = parseSse(await r2.text());
    expect(events.map((e) => e.event)).toEqual(["message_start", "error"]);
    expect(events[1]!.data.error.type).toBe("overloaded_error");
  });

  test("an overload after some text: content deltas, then the error event exactly as the API sends it", async () => {
    api.script([fakeAnthropicErrors.overloaded({ midStream: true, partialText: "The answer is forty" })]);
    const res = await post({ model: "claude-haiku-4-5", max_tokens: 10, messages: HI, stream: true });
    expect(res.status).toBe(200);
    const raw = await res.text();
    const events = parseSse(raw);
    expect(events.map((e) => e.event)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "error",
    ]);
    const text = events.flatMap((e) => (e.event === "content_block_delta" ? [e.data.delta.text] : [])).join("");
    expect(text).toBe("The answer is forty");
    expect(raw).toContain(
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    );
  });

  test("an overload inside a tool call: the tool_use block's partial JSON, then the error event", async () => {
    api.script([
      fakeAnthropicErrors.overloaded({
        midStream: true,
        partialText: "Sending.",
        partialToolUse: { id: "toolu_1", name: "execute", partialJson: '{"code":"send(' },
      }),
    ]);
    const res = await post({ model: "claude-haiku-4-5", max_tokens: 10, messages: HI, stream: true });
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "error",
    ]);
    expect(events[4]!.data).toMatchObject({ index: 1, content_block: { type: "tool_use", id: "toolu_1" } });
    const json = events.flatMap((e) => (e.data.delta?.type === "input_json_delta" ? [e.data.delta.partial_json] : []));
    expect(json.join("")).toBe('{"code":"send(');
  });

  test("a refusal carries stop_details on message_delta (null for other stop reasons)", async () => {
    api.script([
      textTurn("Here", {
        stop_reason: "refusal",
        refusal: { category: "cyber", explanation: "Declined: cyber harm." },
      }),
      textTurn("fine"),
    ]);
    const refused = parseSse(
      await (await post({ model: "claude-haiku-4-5", max_tokens: 10, messages: HI, stream: true })).text(),
    );
    expect(refused.find((e) => e.event === "message_delta")!.data.delta).toEqual({
      stop_reason: "refusal",
      stop_sequence: null,
      stop_details: { type: "refusal", category: "cyber", explanation: "Declined: cyber harm." },
    });
    const plain = (await (await post({ model: "claude-haiku-4-5", max_tokens: 10, messages: HI })).json()) as any;
    expect(plain.stop_details).toBeNull();
  });

  test("a prompt over the context window: 400 prompt is too long, no scripted turn consumed", async () => {
    api.script([textTurn("fits")]);
    api.setContextWindow(50);
    const big = [{ role: "user", content: "x".repeat(400) }];
    const r1 = await post({ model: "claude-haiku-4-5", max_tokens: 10, messages: big });
    expect(r1.status).toBe(400);
    const body = (await r1.json()) as any;
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toMatch(/^prompt is too long: \d+ tokens > 50 maximum$/);
    expect(api.remaining()).toBe(1);
    const r2 = await post({ model: "claude-haiku-4-5", max_tokens: 10, messages: HI });
    expect(((await r2.json()) as any).content[0].text).toBe("fits");
  });

  test("an empty queue and unknown routes fail loudly", async () => {
    const r1 = await post({ model: "claude-haiku-4-5", max_tokens: 10, messages: HI });
    expect(r1.status).toBe(500);
    expect(((await r1.json()) as any).error.message).toContain("no scripted turn left");
    const r2 = await fetch(`${api.url}/v1/models`);
    expect(r2.status).toBe(404);
    expect(api.requests.map((r) => r.path)).toEqual(["/v1/messages", "/v1/models"]);
    expect(api.messageRequests()).toHaveLength(1);
  });
});

// The contract rules, one by one (docs/anthropic-contract.md lists each with its source page).
describe("fake Anthropic enforces the documented contract", () => {
  const S55 = "claude-sonnet-5-5";
  const tool = {
    name: "execute",
    description: "run code",
    input_schema: { type: "object", properties: { code: { type: "string" } } },
  };
  const base = { model: S55, max_tokens: 100, tools: [tool], messages: HI };

  async function rejected(body: unknown, status = 400): Promise<string> {
    const res = await post(body);
    const json = (await res.json()) as any;
    expect({ status: res.status, type: json.type, requestId: typeof json.request_id }).toEqual({
      status,
      type: "error",
      requestId: "string",
    });
    return json.error.message as string;
  }

  /** Round one of a tool loop on Sonnet 5.5: the response (thinking + tool_use) and the round-two messages. */
  async function roundOne(extra: Record<string, unknown> = {}) {
    api.script([
      toolUseTurn({ id: "toolu_1", name: "execute", input: { code: "return 1" } }, { thinking: "I will look." }),
      textTurn("done"),
    ]);
    const first = (await (await post({ ...base, ...extra })).json()) as any;
    const result = { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "1" }] };
    return {
      first,
      next: (content: unknown[]) => ({ ...base, ...extra, messages: [...HI, { role: "assistant", content }, result] }),
    };
  }

  test("an unknown model is a 404 not_found_error", async () => {
    expect(await rejected({ ...base, model: "claude-test" }, 404)).toContain("claude-test");
  });

  test("Sonnet 5.5 thinks by default: a signed thinking block (empty text: display omitted) comes first", async () => {
    const { first } = await roundOne();
    expect(first.content[0]).toMatchObject({ type: "thinking", thinking: "" });
    expect(first.content[0].signature.length).toBeGreaterThan(20);
    expect(first.content[1]).toMatchObject({ type: "tool_use", id: "toolu_1" });
  });

  test("display summarized returns the thinking text; streaming sends thinking_delta then signature_delta", async () => {
    api.script([textTurn("hi", { thinking: "Pondering." })]);
    const res = await post({ ...base, thinking: { type: "adaptive", display: "summarized" }, stream: true });
    const events = parseSse(await res.text());
    const deltas = events
      .filter((e) => e.event === "content_block_delta" && e.data.index === 0)
      .map((e) => e.data.delta.type);
    expect(deltas.at(-1)).toBe("signature_delta");
    expect(deltas.slice(0, -1).every((t) => t === "thinking_delta")).toBe(true);
  });

  test("round two with the thinking block sent back unchanged is accepted", async () => {
    const { first, next } = await roundOne();
    const res = await post(next(first.content.map(({ citations, ...b }: any) => b)));
    expect(res.status).toBe(200);
    expect(api.violations).toEqual([]);
  });

  test("round two without the thinking block (dropped) is a 400", async () => {
    const { first, next } = await roundOne();
    expect(await rejected(next(first.content.filter((b: any) => b.type !== "thinking")))).toContain(
      "Expected `thinking` or `redacted_thinking`",
    );
    expect(api.violations).toHaveLength(1);
    // A rejected request consumes no scripted turn.
    expect(api.remaining()).toBe(1);
  });

  test("an edited thinking block, a forged signature, and a changed prefix are 400s", async () => {
    const { first, next } = await roundOne({ thinking: { type: "adaptive", display: "summarized" } });
    const [thinking, use] = first.content;
    expect(await rejected(next([{ ...thinking, thinking: "edited" }, use]))).toContain("modified");
    expect(await rejected(next([{ ...thinking, signature: "forged.sig" }, use]))).toContain("signature");
    const changed = next([thinking, use]);
    changed.messages[0] = { role: "user", content: "a different question" };
    expect(await rejected(changed)).toContain("changed since it was produced");
    await post(next([thinking, use]));
  });

  test("a thinking block from another model is rejected by Sonnet 5.5 (tied to the model)", async () => {
    api.script([toolUseTurn({ id: "toolu_9", name: "execute", input: { code: "1" } })]);
    const other = (await (await post({ ...base, model: "claude-sonnet-5" })).json()) as any;
    const body = {
      ...base,
      messages: [
        ...HI,
        { role: "assistant", content: other.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_9", content: "1" }] },
      ],
    };
    expect(await rejected(body)).toContain("produced by claude-sonnet-5");
  });

  test("Sonnet 5.5 rejects disabled thinking (pointing to between_tools), forced tool use, sampling, prefill, budgets", async () => {
    expect(await rejected({ ...base, thinking: { type: "disabled" } })).toContain("between_tools");
    expect(await rejected({ ...base, tool_choice: { type: "any" } })).toContain("forced tool use");
    expect(await rejected({ ...base, temperature: 0.5 })).toContain("temperature");
    expect(await rejected({ ...base, messages: [...HI, { role: "assistant", content: "Sure," }] })).toContain(
      "prefill",
    );
    expect(await rejected({ ...base, thinking: { type: "enabled", budget_tokens: 2000 } })).toContain("enabled");
    expect(
      await rejected({ ...base, thinking: { type: "between_tools" }, output_config: { effort: "max" } }),
    ).toContain("between_tools");
    expect(await rejected({ ...base, output_config: { effort: "extreme" } })).toContain("effort");
  });

  test("Haiku 4.5: no thinking unless asked, no effort parameter, thinking with forced tool use is a 400", async () => {
    api.script([textTurn("plain")]);
    const plain = (await (await post({ ...base, model: "claude-haiku-4-5" })).json()) as any;
    expect(plain.content.map((b: any) => b.type)).toEqual(["text"]);
    expect(await rejected({ ...base, model: "claude-haiku-4-5", output_config: { effort: "low" } })).toContain(
      "effort",
    );
    expect(
      await rejected({
        ...base,
        model: "claude-haiku-4-5",
        max_tokens: 4000,
        thinking: { type: "enabled", budget_tokens: 2000 },
        tool_choice: { type: "any" },
      }),
    ).toContain("tool_choice");
  });

  test("structure: tool_use without tool_result, orphan tool_result, empty text, > 4 cache breakpoints, max_tokens over the limit", async () => {
    const use = { type: "tool_use", id: "toolu_x", name: "execute", input: {} };
    const h = "claude-haiku-4-5";
    expect(
      await rejected({
        ...base,
        model: h,
        messages: [...HI, { role: "assistant", content: [use] }, { role: "user", content: "next" }],
      }),
    ).toContain("without `tool_result`");
    expect(
      await rejected({
        ...base,
        model: h,
        messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_x", content: "1" }] }],
      }),
    ).toContain("tool_use_id");
    expect(
      await rejected({ ...base, model: h, messages: [{ role: "user", content: [{ type: "text", text: "  " }] }] }),
    ).toContain("non-whitespace");
    const cc = { type: "ephemeral" };
    const system = [1, 2, 3, 4, 5].map((n) => ({ type: "text", text: `part ${n}`, cache_control: cc }));
    expect(await rejected({ ...base, model: h, system })).toContain("maximum of 4 blocks with cache_control");
    expect(await rejected({ ...base, model: h, max_tokens: 100_000 })).toContain(
      "maximum allowed number of output tokens",
    );
    const ttls = [
      { type: "text", text: "a", cache_control: cc },
      { type: "text", text: "b", cache_control: { type: "ephemeral", ttl: "1h" } },
    ];
    expect(await rejected({ ...base, model: h, system: ttls })).toContain("1h");
  });

  test("usage: a repeated prefix behind a cache breakpoint is read from the cache", async () => {
    const system = [{ type: "text", text: "x".repeat(12_000), cache_control: { type: "ephemeral" } }];
    api.script([textTurn("a"), textTurn("b")]);
    const u1 = ((await (await post({ ...base, system })).json()) as any).usage;
    const u2 = (
      (await (await post({ ...base, system, messages: [{ role: "user", content: "another" }] })).json()) as any
    ).usage;
    expect(u1.cache_read_input_tokens).toBe(0);
    expect(u1.cache_creation_input_tokens).toBeGreaterThan(2000);
    expect(u2.cache_read_input_tokens).toBe(u1.cache_creation_input_tokens);
  });
});

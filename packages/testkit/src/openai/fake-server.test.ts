import { afterEach, describe, expect, test } from "bun:test";
import {
  chatText,
  chatToolCall,
  fakeChatErrors,
  startFakeChatCompletions,
  type FakeChatCompletions,
  type FakeChatCompletionsOptions,
} from "./fake-server.ts";

// Raw HTTP checks of the fake's rules and wire format. The real-client round trips live in
// apps/gateway/src/model/openai/.
let api: FakeChatCompletions | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function start(options: FakeChatCompletionsOptions = {}) {
  api = await startFakeChatCompletions(options);
  return api;
}

const MODEL = "llama3.1:8b";
const HI = [{ role: "user", content: "hi" }];
const EXECUTE = {
  type: "function",
  function: { name: "execute", parameters: { type: "object", properties: { code: { type: "string" } } } },
};

async function post(body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${api!.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

const dataLines = (text: string): string[] =>
  text
    .split("\n\n")
    .filter(Boolean)
    .map((chunk) => /^data: (.*)$/m.exec(chunk)![1]!);

describe("fake Chat Completions: what the real services reject", () => {
  const rejected: Array<[string, unknown, number, string]> = [
    [
      "an unknown top-level field",
      { model: MODEL, messages: HI, cache_control: {} },
      400,
      "Unrecognized request argument supplied: cache_control",
    ],
    ["an unknown model", { model: "gpt-nope", messages: HI }, 404, "does not exist"],
    ["no messages", { model: MODEL, messages: [] }, 400, "too short"],
    ["an unknown role", { model: MODEL, messages: [{ role: "human", content: "hi" }] }, 400, "Supported values are"],
    [
      "a tool message with no tool_calls before it",
      { model: MODEL, messages: [...HI, { role: "tool", tool_call_id: "call_1", content: "1" }] },
      400,
      "must be a response to a preceeding message with 'tool_calls'",
    ],
    [
      "a tool message answering another id",
      {
        model: MODEL,
        messages: [
          ...HI,
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "call_1", type: "function", function: { name: "execute", arguments: "{}" } }],
          },
          { role: "tool", tool_call_id: "call_2", content: "1" },
        ],
      },
      400,
      "must be a response to a preceeding message",
    ],
    [
      "a tool call left unanswered",
      {
        model: MODEL,
        messages: [
          ...HI,
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "call_1", type: "function", function: { name: "execute", arguments: "{}" } }],
          },
          { role: "user", content: "and?" },
        ],
      },
      400,
      "did not have response messages: call_1",
    ],
    [
      "tool call arguments as an object",
      {
        model: MODEL,
        messages: [
          ...HI,
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "call_1", type: "function", function: { name: "execute", arguments: { code: "1" } } }],
          },
          { role: "tool", tool_call_id: "call_1", content: "1" },
        ],
      },
      400,
      "expected a string, but got an object",
    ],
    [
      "an assistant message with neither content nor tool_calls",
      { model: MODEL, messages: [...HI, { role: "assistant", content: null }] },
      400,
      "expected a string, got null",
    ],
    [
      "stream_options without stream",
      { model: MODEL, messages: HI, stream_options: { include_usage: true } },
      400,
      "only allowed when 'stream' is enabled",
    ],
    [
      "tool_choice without tools",
      { model: MODEL, messages: HI, tool_choice: "none" },
      400,
      "only allowed when 'tools' are specified",
    ],
    [
      "a function name with a space",
      { model: MODEL, messages: HI, tools: [{ type: "function", function: { name: "run code" } }] },
      400,
      "does not match pattern",
    ],
    [
      "max_tokens over the model's limit",
      { model: MODEL, messages: HI, max_tokens: 1_000_000 },
      400,
      "max_tokens is too large",
    ],
    [
      "Anthropic-style content blocks",
      { model: MODEL, messages: [{ role: "user", content: [{ type: "tool_result", content: "x" }] }] },
      400,
      "Supported values are: 'text'",
    ],
  ];
  for (const [what, body, status, message] of rejected)
    test(`rejects ${what} as the real API does, and records it`, async () => {
      await start();
      api!.script([chatText("never served")]);
      const res = await post(body);
      expect(res.status).toBe(status);
      const error = JSON.parse(res.text).error;
      expect(error.message).toContain(message);
      expect(Object.keys(error).sort()).toEqual(["code", "message", "param", "type"]);
      expect(api!.violations).toHaveLength(1);
      expect(api!.remaining()).toBe(1);
    });

  test("a model without tool support rejects tools (Ollama: does not support tools)", async () => {
    await start({ models: [{ id: "gemma:2b", tools: false }] });
    const res = await post({ model: "gemma:2b", messages: HI, tools: [EXECUTE] });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error.message).toBe("gemma:2b does not support tools");
  });

  test("with a key configured, a request without it is a 401 invalid_api_key", async () => {
    await start({ apiKey: "sk-or-test" });
    const res = await post({ model: MODEL, messages: HI });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.text).error.code).toBe("invalid_api_key");
    expect((await post({ model: MODEL, messages: HI }, { authorization: "Bearer sk-or-test" })).status).toBe(500);
  });

  test("a prompt past the context window is the documented context_length_exceeded", async () => {
    await start({ models: [{ id: MODEL, contextWindow: 50 }] });
    const res = await post({ model: MODEL, messages: [{ role: "user", content: "x".repeat(400) }] });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error.code).toBe("context_length_exceeded");
    expect(api!.violations).toHaveLength(0);
  });
});

describe("fake Chat Completions: what it answers", () => {
  test("a valid tool loop is accepted and the completion has finish_reason and usage", async () => {
    await start();
    api!.script([chatText("done", { usage: { prompt_tokens: 12, completion_tokens: 3 } })]);
    const res = await post({
      model: MODEL,
      max_tokens: 100,
      tools: [EXECUTE],
      messages: [
        { role: "system", content: "be brief" },
        ...HI,
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: "execute", arguments: '{"code":"1"}' } }],
        },
        { role: "tool", tool_call_id: "call_1", content: "1" },
      ],
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({
      object: "chat.completion",
      model: MODEL,
      choices: [{ index: 0, message: { role: "assistant", content: "done" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
    });
  });

  test("streams chunks as the API does: role first, deltas, finish_reason, the usage chunk, then [DONE]", async () => {
    await start();
    api!.script([
      chatToolCall(
        { id: "call_9", name: "execute", input: { code: "return 1" } },
        { text: "Let me check.", chunkSize: 5 },
      ),
    ]);
    const res = await post({
      model: MODEL,
      messages: HI,
      tools: [EXECUTE],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(res.status).toBe(200);
    const lines = dataLines(res.text);
    expect(lines.at(-1)).toBe("[DONE]");
    const chunks = lines.slice(0, -1).map((l) => JSON.parse(l));
    expect(chunks.every((c) => c.object === "chat.completion.chunk" && c.id === chunks[0].id)).toBe(true);
    expect(chunks[0].choices[0].delta.role).toBe("assistant");
    const text = chunks.flatMap((c) => c.choices.map((ch: any) => ch.delta.content ?? "")).join("");
    expect(text).toBe("Let me check.");
    const args = chunks
      .flatMap((c) =>
        c.choices.flatMap((ch: any) => (ch.delta.tool_calls ?? []).map((t: any) => t.function.arguments ?? "")),
      )
      .join("");
    expect(JSON.parse(args)).toEqual({ code: "return 1" });
    const finishing = chunks.filter((c) => c.choices[0]?.finish_reason);
    expect(finishing.map((c) => c.choices[0].finish_reason)).toEqual(["tool_calls"]);
    const last = chunks.at(-1);
    expect(last.choices).toEqual([]);
    expect(last.usage.total_tokens).toBeGreaterThan(0);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
  });

  test("without include_usage no usage chunk is sent", async () => {
    await start();
    api!.script([chatText("hi")]);
    const chunks = dataLines((await post({ model: MODEL, messages: HI, stream: true })).text)
      .slice(0, -1)
      .map((l) => JSON.parse(l));
    expect(chunks.every((c) => c.choices.length === 1 && !("usage" in c))).toBe(true);
  });

  test("serves scripted errors in the API's shape, with retry-after", async () => {
    await start();
    api!.script([fakeChatErrors.rateLimited(7)]);
    const res = await fetch(`${api!.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, messages: HI }),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
    expect(((await res.json()) as any).error.code).toBe("rate_limit_exceeded");
    expect(api!.violations).toHaveLength(0);
  });

  test("a mid-stream error: the reply begins, then an error chunk, and no [DONE]", async () => {
    await start();
    api!.script([{ error: { ...fakeChatErrors.overloaded().error, midStream: { partialText: "The answer" } } }]);
    const res = await post({ model: MODEL, messages: HI, stream: true });
    expect(res.status).toBe(200);
    const lines = dataLines(res.text);
    expect(lines).not.toContain("[DONE]");
    const chunks = lines.map((l) => JSON.parse(l));
    expect(
      chunks
        .slice(0, -1)
        .map((c) => c.choices[0].delta.content ?? "")
        .join(""),
    ).toBe("The answer");
    expect(chunks.at(-1).error).toMatchObject({ type: "server_error", message: expect.stringContaining("overloaded") });
  });

  test("lists its models at GET /v1/models", async () => {
    await start({ models: [{ id: "qwen2.5-coder:7b" }, { id: "gemma:2b", tools: false }] });
    const list = (await (await fetch(`${api!.url}/models`)).json()) as any;
    expect(list.object).toBe("list");
    expect(list.data.map((m: any) => m.id)).toEqual(["qwen2.5-coder:7b", "gemma:2b"]);
  });
});

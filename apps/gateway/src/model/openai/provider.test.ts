import { afterEach, describe, expect, test } from "bun:test";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages/messages";
import {
  chatText,
  chatToolCall,
  fakeChatErrors,
  startFakeChatCompletions,
  type FakeChatCompletions,
  type FakeChatCompletionsOptions,
} from "@openassistant/testkit/openai/fake-server.ts";
import type { ModelRequest } from "../../agent/request.ts";
import { EXECUTE_TOOL } from "../../agent/execute-tool.ts";
import { ModelError } from "../errors.ts";
import type { ToolCallMode } from "../provider.ts";
import { createChatCompletionsProvider } from "./provider.ts";

// The real `openai` client against the strict fake: every request it sends must be one the real
// services accept (a violation fails the test in afterEach).
let api: FakeChatCompletions | undefined;
afterEach(async () => {
  const violations = api?.violations ?? [];
  await api?.close();
  api = undefined;
  expect(violations.map((v) => v.message)).toEqual([]);
});

const MODEL = "llama3.1:8b";

/** Without transient retries unless asked (`retries`), so each scripted error is what the call ends with. */
async function providerFor(
  mode: ToolCallMode = "native",
  options: FakeChatCompletionsOptions = {},
  apiKey?: string,
  retries = 0,
) {
  api = await startFakeChatCompletions(options);
  return createChatCompletionsProvider(
    { provider: "openai-compatible", name: MODEL, baseURL: api.url, toolCalls: mode, ...(apiKey ? { apiKey } : {}) },
    { transientRetries: retries, transientDelayMs: 0 },
  );
}

const request = (messages: MessageParam[], extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model: MODEL,
  max_tokens: 1024,
  system: [{ type: "text", text: "You are a test.", cache_control: { type: "ephemeral", ttl: "1h" } }],
  tools: [EXECUTE_TOOL],
  messages,
  cache_control: { type: "ephemeral" },
  thinking: { type: "adaptive" },
  ...extra,
});

const ask: MessageParam[] = [{ role: "user", content: [{ type: "text", text: "list my reminders" }] }];

/** A whole tool loop in the turn loop's shape: the call, its result, the user's request before them. */
const loop: MessageParam[] = [
  ...ask,
  {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "", signature: "sig" },
      { type: "text", text: "Checking." },
      { type: "tool_use", id: "call_1", name: "execute", input: { code: "return await tools.reminders.list({})" } },
    ],
  },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: '[{"id":"rem_0"}]' }] },
];

describe("OpenAI-compatible provider, native tool calls", () => {
  test("streams text through onText and answers a Message with usage and the model that answered", async () => {
    const p = await providerFor();
    api!.script([chatText("You have one reminder.", { usage: { prompt_tokens: 40, completion_tokens: 6 } })]);
    const deltas: string[] = [];
    const message = await p.streamMessage(request(ask), { onText: (t) => deltas.push(t) });
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("You have one reminder.");
    expect(message).toMatchObject({
      model: MODEL,
      stop_reason: "end_turn",
      content: [{ type: "text", text: "You have one reminder." }],
      usage: { input_tokens: 40, output_tokens: 6 },
    });
    const sent = api!.completionRequests()[0]!.body;
    expect(sent.stream).toBe(true);
    expect(sent.stream_options).toEqual({ include_usage: true });
    expect(sent.messages[0]).toEqual({ role: "system", content: "You are a test." });
    expect(sent.tools[0].function.name).toBe("execute");
    expect(sent.tool_choice).toBe("auto");
    // Claude's own fields are not sent: the fake would reject them, as the real services do.
    expect(sent.thinking).toBeUndefined();
    expect(sent.cache_control).toBeUndefined();
  });

  test("a tool call becomes an execute tool_use; the loop goes back as tool_calls and a tool message", async () => {
    const p = await providerFor();
    api!.script([
      chatToolCall({ id: "call_7", name: "execute", input: { code: "return 1" } }, { text: "Let me look." }),
      chatText("Done."),
    ]);
    const first = await p.streamMessage(request(ask), {});
    expect(first.stop_reason).toBe("tool_use");
    expect(first.content).toEqual([
      { type: "text", text: "Let me look.", citations: null },
      { type: "tool_use", id: "call_7", name: "execute", input: { code: "return 1" } },
    ] as never);
    await p.streamMessage(request(loop), {});
    const sent = api!.completionRequests()[1]!.body.messages;
    expect(sent.slice(1)).toEqual([
      { role: "user", content: "list my reminders" },
      {
        role: "assistant",
        content: "Checking.",
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "execute", arguments: JSON.stringify({ code: "return await tools.reminders.list({})" }) },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: '[{"id":"rem_0"}]' },
    ]);
  });

  test("a final round says tool_choice none; length is max_tokens; malformed arguments reach the loop as such", async () => {
    const p = await providerFor();
    api!.script([
      chatText("Partial", { finishReason: "length" }),
      { toolCalls: [{ id: "c", name: "execute", arguments: '{"code": "ret' }] },
    ]);
    const cut = await p.streamMessage(request(ask, { tool_choice: { type: "none" } }), {});
    expect(api!.completionRequests()[0]!.body.tool_choice).toBe("none");
    expect(cut.stop_reason).toBe("max_tokens");
    const bad = await p.streamMessage(request(ask), {});
    expect((bad.content[0] as { input: unknown }).input).toBe('malformed JSON arguments: {"code": "ret');
  });
});

describe("OpenAI-compatible provider, code-block mode", () => {
  test("sends no tools; the reply's fenced block is an execute call and its code is not shown as the answer", async () => {
    const p = await providerFor("code-block", { models: [{ id: MODEL, tools: false }] });
    api!.script([chatText("I'll check.\n```ts\nreturn await tools.reminders.list({});\n```\n", { chunkSize: 3 })]);
    const shown: string[] = [];
    const message = await p.streamMessage(request(ask), { onText: (t) => shown.push(t) });
    expect(shown.join("")).toBe("I'll check.\n");
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content[0]).toMatchObject({ type: "text", text: "I'll check." });
    expect(message.content[1]).toMatchObject({
      type: "tool_use",
      name: "execute",
      input: { code: "return await tools.reminders.list({});" },
    });
    const sent = api!.completionRequests()[0]!.body;
    expect(sent.tools).toBeUndefined();
    expect(sent.messages[0].content).toContain("fenced TypeScript block");
  });

  test("the loop goes back as the model's fenced code and a user message with the result", async () => {
    const p = await providerFor("code-block", { models: [{ id: MODEL, tools: false }] });
    api!.script([chatText("One reminder: rem_0.")]);
    const answer = await p.streamMessage(request(loop, { tool_choice: { type: "none" } }), {});
    expect(answer.stop_reason).toBe("end_turn");
    const sent = api!.completionRequests()[0]!.body.messages;
    expect(sent[2]).toEqual({
      role: "assistant",
      content: "Checking.\n\n```ts\nreturn await tools.reminders.list({})\n```",
    });
    expect(sent[3]).toEqual({ role: "user", content: 'Result of your code:\n[{"id":"rem_0"}]' });
    expect(sent[0].content).toContain("do not write a code block");
  });

  test("a reply without a closed fence is an answer (an unclosed one is not run)", async () => {
    const p = await providerFor("code-block", { models: [{ id: MODEL, tools: false }] });
    api!.script([chatText("```ts\nawait tools.mail.send({", { finishReason: "length" })]);
    const cut = await p.streamMessage(request(ask), {});
    expect(cut.stop_reason).toBe("max_tokens");
    expect(cut.content.every((b) => b.type === "text")).toBe(true);
  });
});

describe("OpenAI-compatible provider: failures as ModelError kinds", () => {
  const cases: Array<[string, ReturnType<typeof fakeChatErrors.rateLimited>, string]> = [
    ["a 429", fakeChatErrors.rateLimited(3), "rate_limited"],
    ["a 503", fakeChatErrors.overloaded(), "overloaded"],
    ["a 500", fakeChatErrors.serverError(), "api"],
  ];
  for (const [what, error, kind] of cases)
    test(`${what} is ${kind}`, async () => {
      const p = await providerFor();
      api!.script([error]);
      const err = await p.streamMessage(request(ask), {}).catch((e) => e);
      expect(err).toBeInstanceOf(ModelError);
      expect(err.kind).toBe(kind);
      if (kind === "rate_limited") expect(err.retryAfterSeconds).toBe(3);
    });

  test("an unknown model names model.name; the key is sent and never appears in the error", async () => {
    const key = "sk-or-v1-secret-0123456789";
    const p = await providerFor("native", { apiKey: key }, key);
    const err = await p.streamMessage({ ...request(ask), model: "gpt-nope" }, {}).catch((e) => e);
    expect(err.kind).toBe("invalid_request");
    expect(err.message).toContain("model.name");
    expect(err.message).not.toContain(key);
    expect(api!.requests[0]!.headers.authorization).toBe(`Bearer ${key}`);
    api!.violations.length = 0; // the unknown model was the point
  });

  test("a wrong key is auth; nothing listening is network", async () => {
    const p = await providerFor("native", { apiKey: "right" }, "wrong");
    expect((await p.streamMessage(request(ask), {}).catch((e) => e)).kind).toBe("auth");
    const url = api!.url;
    await api!.close();
    api = undefined;
    const gone = createChatCompletionsProvider({ provider: "openai-compatible", name: MODEL, baseURL: url });
    const err = await gone.streamMessage(request(ask), {}).catch((e) => e);
    expect(err.kind).toBe("network");
    expect(err.message).toContain(url);
  });

  test("a 500 is tried once more; a reply that broke off mid-stream is withdrawn and made again whole", async () => {
    const p = await providerFor("native", {}, undefined, 1);
    api!.script([fakeChatErrors.serverError(), chatText("fine")]);
    expect((await p.streamMessage(request(ask), {})).content[0]).toMatchObject({ text: "fine" });
    api!.script([
      { error: { ...fakeChatErrors.overloaded().error, midStream: { partialText: "The answer is" } } },
      chatText("The answer is 42."),
    ]);
    const shown: string[] = [];
    const discarded: string[] = [];
    const message = await p.streamMessage(request(ask), {
      onText: (t) => shown.push(t),
      onDiscard: (d) => discarded.push(d.reason),
    });
    expect(message.content[0]).toMatchObject({ text: "The answer is 42." });
    expect(discarded).toHaveLength(1);
    expect(discarded[0]).toContain("broke off its reply");
    expect(shown.join("")).toBe("The answer isThe answer is 42.");
    // Retries are bounded: two failures in a row end the call.
    api!.script([fakeChatErrors.serverError(), fakeChatErrors.serverError()]);
    expect((await p.streamMessage(request(ask), {}).catch((e) => e)).kind).toBe("api");
  });

  test("a prompt past the context window is context_too_long (the turn compacts, as for Claude)", async () => {
    const p = await providerFor("native", { models: [{ id: MODEL, contextWindow: 200 }] });
    const err = await p.streamMessage({ ...request(ask), max_tokens: 100 }, {}).catch((e) => e);
    expect(err.kind).toBe("context_too_long");
  });

  test("lists the endpoint's models", async () => {
    const p = await providerFor("native", { models: [{ id: "qwen2.5-coder:7b" }, { id: MODEL }] });
    expect(await p.listModels()).toEqual(["qwen2.5-coder:7b", MODEL]);
  });

  test("a cancelled call is aborted", async () => {
    const p = await providerFor();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const controller = new AbortController();
    api!.script([
      chatText("a long answer that never ends", {
        holdStream: { afterChunks: 2, until: held, onHeld: () => controller.abort() },
      }),
    ]);
    const err = await p.streamMessage(request(ask), { signal: controller.signal }).catch((e) => e);
    release();
    expect(err.kind).toBe("aborted");
  });
});

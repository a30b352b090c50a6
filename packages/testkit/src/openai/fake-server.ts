import {
  checkChatRequest,
  checkContextLength,
  estimatePromptTokens,
  type ChatContractError,
  type FakeChatModel,
} from "./contract.ts";

/**
 * A fake OpenAI-compatible Chat Completions API on 127.0.0.1 (what Ollama, vLLM, LM Studio,
 * llama.cpp's server and OpenRouter serve), for tests that drive the real `openai` client. As strict
 * as the real services (contract.ts, each rule citing its page): a request they would reject is
 * answered with their status and error body `{ error: { message, type, param, code } }`, recorded in
 * `violations`, consumes no scripted turn, and fails the test that sent it (the harness checks).
 *
 * Each valid `POST /v1/chat/completions` consumes the next scripted turn. Streaming is served as the
 * API streams (OPENAI_DOCS.streaming): `data: {chat.completion.chunk}` lines, the role first, then
 * content / tool_call deltas, a last choice chunk with `finish_reason`, the usage chunk (empty
 * `choices`) when `stream_options.include_usage` asks for it, then `data: [DONE]`.
 * `GET /v1/models` lists the fake's models.
 */

export interface ScriptedToolCall {
  readonly id: string;
  readonly name: string;
  /** The function arguments as the model wrote them (a JSON string, maybe malformed). */
  readonly arguments: string;
}

export interface ScriptedCompletion {
  readonly text?: string;
  readonly toolCalls?: readonly ScriptedToolCall[];
  /** Defaults to "tool_calls" with tool calls, else "stop". */
  readonly finishReason?: "stop" | "length" | "tool_calls" | "content_filter";
  /** Defaults: prompt tokens as characters / 4 of the request, completion tokens of the output. */
  readonly usage?: { readonly prompt_tokens?: number; readonly completion_tokens?: number };
  /** Defaults to the request's model. */
  readonly model?: string;
  /** Characters per content / arguments delta (default 8). */
  readonly chunkSize?: number;
  /** When streaming: send `afterChunks` chunks, call `onHeld`, hold the stream until `until` settles. */
  readonly holdStream?: {
    readonly afterChunks: number;
    readonly until: Promise<unknown>;
    readonly onHeld?: () => void;
  };
}

export interface ScriptedChatError {
  readonly error: {
    readonly status: number;
    readonly type: string;
    readonly code?: string | null;
    readonly message: string;
    /** Sets `retry-after` (seconds). */
    readonly retryAfterSeconds?: number;
    /**
     * For a streaming request: answer 200, stream `partialText` (if any), then the error as a
     * `data: {"error": …}` chunk and end the stream without `[DONE]` — how OpenAI-compatible
     * gateways report a failure after the reply began (https://openrouter.ai/docs/api-reference/errors,
     * "Error during streaming").
     */
    readonly midStream?: { readonly partialText?: string };
  };
}

export type StaticChatTurn = ScriptedCompletion | ScriptedChatError;
export type ScriptedChatTurn = StaticChatTurn | ((request: RecordedChatRequest) => StaticChatTurn);

export interface RecordedChatRequest {
  readonly method: string;
  readonly path: string;
  /** Lower-cased header names. */
  readonly headers: Record<string, string>;
  // The body is whatever the client sent.
  readonly body: any;
}

export interface ChatContractViolation extends ChatContractError {
  readonly request: RecordedChatRequest;
}

export interface FakeChatCompletionsOptions {
  /** The models served (default: one, `llama3.1:8b`, with tool support). */
  readonly models?: readonly Partial<FakeChatModel>[];
  /** Requests must carry `Authorization: Bearer <apiKey>` (OpenAI, OpenRouter); absent: any (local Ollama). */
  readonly apiKey?: string;
}

export interface FakeChatCompletions {
  /** Base URL as clients take it, with `/v1` (e.g. http://127.0.0.1:PORT/v1). */
  readonly url: string;
  script(turns: ScriptedChatTurn[]): void;
  readonly requests: RecordedChatRequest[];
  /** Requests to POST /v1/chat/completions only. */
  completionRequests(): RecordedChatRequest[];
  readonly violations: ChatContractViolation[];
  remaining(): number;
  close(): Promise<void>;
}

export const DEFAULT_FAKE_CHAT_MODEL: FakeChatModel = {
  id: "llama3.1:8b",
  tools: true,
  contextWindow: 128_000,
  maxOutput: 16_384,
};

/** A text answer. */
export const chatText = (text: string, extra: Partial<ScriptedCompletion> = {}): ScriptedCompletion => ({
  text,
  ...extra,
});

/** A native tool call (optionally after some text); `input` is sent as its JSON arguments. */
export const chatToolCall = (
  call: { id: string; name: string; input: unknown },
  extra: Partial<ScriptedCompletion> = {},
): ScriptedCompletion => ({
  toolCalls: [{ id: call.id, name: call.name, arguments: JSON.stringify(call.input) }],
  ...extra,
});

/** The errors OpenAI-compatible services send (OPENAI_DOCS.errors), ready to script. */
export const fakeChatErrors = {
  rateLimited: (retryAfterSeconds?: number): ScriptedChatError => ({
    error: {
      status: 429,
      type: "requests",
      code: "rate_limit_exceeded",
      message: "Rate limit reached for requests. Please try again later.",
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    },
  }),
  serverError: (): ScriptedChatError => ({
    error: {
      status: 500,
      type: "server_error",
      code: null,
      message: "The server had an error while processing your request. Sorry about that!",
    },
  }),
  overloaded: (): ScriptedChatError => ({
    error: {
      status: 503,
      type: "server_error",
      code: null,
      message: "The engine is currently overloaded, please try again later.",
    },
  }),
  invalidKey: (): ScriptedChatError => ({
    error: {
      status: 401,
      type: "invalid_request_error",
      code: "invalid_api_key",
      message: "Incorrect API key provided.",
    },
  }),
};

export async function startFakeChatCompletions(options: FakeChatCompletionsOptions = {}): Promise<FakeChatCompletions> {
  const models = new Map<string, FakeChatModel>(
    (options.models ?? [DEFAULT_FAKE_CHAT_MODEL]).map((m) => {
      const model = { ...DEFAULT_FAKE_CHAT_MODEL, ...m };
      return [model.id, model];
    }),
  );
  const queue: ScriptedChatTurn[] = [];
  const requests: RecordedChatRequest[] = [];
  const violations: ChatContractViolation[] = [];
  let served = 0;

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const recorded = await record(req);
      requests.push(recorded);
      // OPENAI_DOCS.errors: 401 invalid_api_key for a missing or wrong key.
      if (options.apiKey !== undefined && recorded.headers.authorization !== `Bearer ${options.apiKey}`)
        return errorResponse({
          status: 401,
          type: "invalid_request_error",
          code: "invalid_api_key",
          param: null,
          message:
            "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
        });
      if (req.method === "GET" && recorded.path === "/v1/models")
        // OPENAI_DOCS.models: `{ object: "list", data: [{ id, object: "model", created, owned_by }] }`.
        return Response.json({
          object: "list",
          data: [...models.keys()].map((id) => ({ id, object: "model", created: 1_700_000_000, owned_by: "fake" })),
        });
      if (req.method !== "POST" || recorded.path !== "/v1/chat/completions")
        return errorResponse({
          status: 404,
          type: "invalid_request_error",
          code: "unknown_url",
          param: null,
          message: `Unknown request URL: ${req.method} ${recorded.path}. Please check the URL for typos.`,
        });
      const problem = checkChatRequest(recorded.body, models);
      if (problem) {
        violations.push({ ...problem, request: recorded });
        return errorResponse(problem);
      }
      const model = models.get(recorded.body.model)!;
      const tooLong = checkContextLength(recorded.body, model);
      if (tooLong) return errorResponse(tooLong);
      const next = queue.shift();
      if (!next)
        return errorResponse({
          status: 500,
          type: "server_error",
          code: null,
          param: null,
          message: `fake-chat-completions: no scripted turn left for request #${requests.length}; call script() with more turns`,
        });
      const turn = typeof next === "function" ? next(recorded) : next;
      if ("error" in turn) {
        if (turn.error.midStream && recorded.body.stream === true)
          return midStreamError(turn, recorded.body.model, ++served);
        return errorResponse({ param: null, code: null, ...turn.error });
      }
      const completion = buildCompletion(turn, recorded.body, ++served);
      if (recorded.body.stream === true)
        return sseResponse(
          chunksOf(completion, turn, recorded.body.stream_options?.include_usage === true),
          turn.holdStream,
        );
      return Response.json(completion);
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    script: (turns) => void queue.push(...turns),
    requests,
    completionRequests: () => requests.filter((r) => r.method === "POST" && r.path === "/v1/chat/completions"),
    violations,
    remaining: () => queue.length,
    async close() {
      await server.stop(true);
    },
  };
}

async function record(req: Request): Promise<RecordedChatRequest> {
  const headers: Record<string, string> = {};
  req.headers.forEach((value, key) => {
    headers[key.toLowerCase()] = value;
  });
  const text = await req.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { method: req.method, path: new URL(req.url).pathname, headers, body };
}

// OPENAI_DOCS.errors: `{ error: { message, type, param, code } }`, with `retry-after` on a 429 when given.
function errorResponse(e: ChatContractError & { retryAfterSeconds?: number }): Response {
  const headers: Record<string, string> = {};
  if (e.retryAfterSeconds !== undefined) headers["retry-after"] = String(e.retryAfterSeconds);
  return Response.json(
    { error: { message: e.message, type: e.type, param: e.param, code: e.code } },
    { status: e.status, headers },
  );
}

interface Completion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  system_fingerprint: string;
  choices: Array<{
    index: 0;
    message: {
      role: "assistant";
      content: string | null;
      refusal: null;
      tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
    };
    logprobs: null;
    finish_reason: string;
  }>;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

// OPENAI_DOCS.object: the chat.completion object.
function buildCompletion(turn: ScriptedCompletion, body: Record<string, unknown>, n: number): Completion {
  const calls = turn.toolCalls ?? [];
  const prompt = turn.usage?.prompt_tokens ?? estimatePromptTokens(body);
  const output = (turn.text ?? "") + calls.map((c) => c.name + c.arguments).join("");
  const completion = turn.usage?.completion_tokens ?? Math.max(1, Math.ceil(output.length / 4));
  return {
    id: `chatcmpl-fake${String(n).padStart(6, "0")}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: turn.model ?? (body.model as string),
    system_fingerprint: "fp_fake",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: turn.text ?? null,
          refusal: null,
          ...(calls.length
            ? {
                tool_calls: calls.map((c) => ({
                  id: c.id,
                  type: "function" as const,
                  function: { name: c.name, arguments: c.arguments },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: turn.finishReason ?? (calls.length ? "tool_calls" : "stop"),
      },
    ],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}

const pieces = (text: string, size: number): string[] => {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
};

/** OPENAI_DOCS.streaming: the chunks of one completion, in the order the API sends them. */
function chunksOf(c: Completion, turn: ScriptedCompletion, includeUsage: boolean): unknown[] {
  const size = turn.chunkSize ?? 8;
  const message = c.choices[0]!.message;
  const base = {
    id: c.id,
    object: "chat.completion.chunk",
    created: c.created,
    model: c.model,
    system_fingerprint: c.system_fingerprint,
  };
  // With include_usage, every chunk carries `usage: null` but the last (OPENAI_DOCS.create, stream_options).
  const chunk = (delta: unknown, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const out: unknown[] = [chunk({ role: "assistant", content: "", refusal: null })];
  for (const piece of pieces(message.content ?? "", size)) out.push(chunk({ content: piece }));
  for (const [index, call] of (message.tool_calls ?? []).entries()) {
    out.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }],
      }),
    );
    for (const piece of pieces(call.function.arguments, size))
      out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  }
  out.push(chunk({}, c.choices[0]!.finish_reason));
  if (includeUsage) out.push({ ...base, choices: [], usage: c.usage });
  return out;
}

function sseResponse(chunks: unknown[], hold?: ScriptedCompletion["holdStream"]): Response {
  const encoder = new TextEncoder();
  const stream = new ReadableStream({
    async start(controller) {
      for (const [i, chunk] of chunks.entries()) {
        if (hold && i === hold.afterChunks) {
          hold.onHeld?.();
          await hold.until.catch(() => {});
        }
        try {
          controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`));
        } catch {
          return; // the client went away (an aborted call)
        }
      }
      try {
        controller.enqueue(encoder.encode("data: [DONE]\n\n"));
        controller.close();
      } catch {
        // the client went away
      }
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" },
  });
}

/** A reply that began, then broke off with an error chunk (ScriptedChatError `midStream`). */
function midStreamError(turn: ScriptedChatError, model: string, n: number): Response {
  const base = {
    id: `chatcmpl-fake${String(n).padStart(6, "0")}`,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model,
  };
  const chunk = (delta: unknown) => ({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: null }] });
  const lines = [
    chunk({ role: "assistant", content: "" }),
    ...pieces(turn.error.midStream?.partialText ?? "", 8).map((p) => chunk({ content: p })),
  ];
  const { message, type, code } = turn.error;
  const body = [
    ...lines.map((l) => `data: ${JSON.stringify(l)}\n\n`),
    `data: ${JSON.stringify({ error: { message, type, code: code ?? null, param: null } })}\n\n`,
  ].join("");
  return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
}

/**
 * A fake Anthropic Messages API on 127.0.0.1 for tests that drive the real `@anthropic-ai/sdk`.
 *
 * Bun's fetch cannot be intercepted, so tests point the SDK at this server instead:
 *
 * ```ts
 * const api = await startFakeAnthropic();
 * api.script([
 *   textTurn("Hello!"),
 *   toolUseTurn({ id: "toolu_1", name: "execute", input: { code: "return 1" } }),
 *   fakeAnthropicErrors.rateLimited(30),
 *   (req) => textTurn(`you sent ${req.body.messages.length} messages`),
 * ]);
 * const client = new Anthropic({ baseURL: api.url, apiKey: "sk-ant-test", maxRetries: 0 });
 * // ... later
 * expect(api.requests[0]!.headers.authorization).toBe("Bearer sk-ant-test");
 * await api.close();
 * ```
 *
 * Each `POST /v1/messages` consumes the next scripted turn. A message turn is served as JSON, or as
 * an SSE stream when the request body has `stream: true` (message_start, ping, content_block_start /
 * delta / stop with text_delta and input_json_delta, message_delta, message_stop). An error turn is
 * served as the API's error JSON with its status (or, with `midStream`, as an SSE `error` event
 * after message_start). When the queue is empty the server answers 500 `api_error` naming the
 * problem, so a missing script fails loudly instead of hanging. Every request (any path) is recorded.
 */

/** A content block the fake can return. */
export type FakeContentBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: unknown };

export interface FakeUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

export type FakeStopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "refusal" | "pause_turn";

/** A successful assistant message. */
export interface ScriptedMessage {
  content: FakeContentBlock[];
  /** Defaults to "tool_use" when a tool_use block is present, else "end_turn". */
  stop_reason?: FakeStopReason;
  usage?: FakeUsage;
  /** Defaults to the request's `model`. */
  model?: string;
  /** Defaults to a generated `msg_fake_<n>`. */
  id?: string;
  /** Characters per text_delta / input_json_delta when streaming (default 8). */
  chunkSize?: number;
  /** Wait this long before answering (for abort / timeout tests). */
  delayMs?: number;
}

/** An API error response. */
export interface ScriptedError {
  error: {
    status: number;
    /** Anthropic error type, e.g. "rate_limit_error", "overloaded_error". */
    type: string;
    message: string;
    /** Sets the `retry-after` header (seconds). */
    retryAfterSeconds?: number;
    /** Sets `x-should-retry` (the SDK honours it over its own status rules). */
    shouldRetry?: boolean;
    /** Extra response headers. */
    headers?: Record<string, string>;
    /** For streaming requests: answer 200, send message_start, then an SSE `error` event. */
    midStream?: boolean;
    delayMs?: number;
  };
}

export type StaticTurn = ScriptedMessage | ScriptedError;

/** A scripted turn: fixed, or computed from the request it answers (e.g. echo a tool_result). */
export type ScriptedTurn = StaticTurn | ((request: RecordedRequest) => StaticTurn | Promise<StaticTurn>);

export interface RecordedRequest {
  method: string;
  /** Path without the query string, e.g. "/v1/messages". */
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** Parsed JSON body (undefined when empty or not JSON). */
  // biome-ignore lint: the body is whatever the client sent
  body: any;
}

export interface FakeAnthropic {
  /** Base URL to pass as the SDK's `baseURL` (no trailing slash, no `/v1`). */
  url: string;
  /** Append turns to the queue; each POST /v1/messages consumes one. */
  script(turns: ScriptedTurn[]): void;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Requests to POST /v1/messages only. */
  messageRequests(): RecordedRequest[];
  /** Number of scripted turns not consumed yet. */
  remaining(): number;
  close(): Promise<void>;
}

/** A text-only assistant message. */
export function textTurn(text: string, extra: Partial<ScriptedMessage> = {}): ScriptedMessage {
  return { content: [{ type: "text", text }], ...extra };
}

/** An assistant message that calls one tool (optionally preceded by text). */
export function toolUseTurn(
  call: { id: string; name: string; input: unknown },
  extra: Partial<ScriptedMessage> & { text?: string } = {},
): ScriptedMessage {
  const { text, ...rest } = extra;
  const content: FakeContentBlock[] = text ? [{ type: "text", text }] : [];
  content.push({ type: "tool_use", ...call });
  return { content, stop_reason: "tool_use", ...rest };
}

/** The error responses Anthropic actually sends, ready to script. */
export const fakeAnthropicErrors = {
  authentication: (message = "invalid x-api-key"): ScriptedError => ({
    error: { status: 401, type: "authentication_error", message },
  }),
  tokenExpired: (): ScriptedError => ({
    error: { status: 401, type: "authentication_error", message: "OAuth token has expired. Please obtain a new token or refresh your existing token." },
  }),
  permission: (message = "Your API key does not have permission to use the specified resource."): ScriptedError => ({
    error: { status: 403, type: "permission_error", message },
  }),
  /** The rejection of a Claude setup-token used outside Claude Code. */
  setupTokenRejected: (): ScriptedError => ({
    error: {
      status: 400,
      type: "invalid_request_error",
      message: "This credential is only authorized for use with Claude Code and cannot be used for other API requests.",
    },
  }),
  rateLimited: (retryAfterSeconds = 60): ScriptedError => ({
    error: {
      status: 429,
      type: "rate_limit_error",
      message: "Number of request tokens has exceeded your per-minute rate limit",
      retryAfterSeconds,
    },
  }),
  overloaded: (opts: { midStream?: boolean } = {}): ScriptedError => ({
    error: { status: 529, type: "overloaded_error", message: "Overloaded", ...opts },
  }),
  billing: (): ScriptedError => ({
    error: {
      status: 400,
      type: "billing_error",
      message: "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.",
    },
  }),
  promptTooLong: (tokens = 210_000, max = 200_000): ScriptedError => ({
    error: { status: 400, type: "invalid_request_error", message: `prompt is too long: ${tokens} tokens > ${max} maximum` },
  }),
  apiError: (status = 500): ScriptedError => ({
    error: { status, type: "api_error", message: "Internal server error" },
  }),
};

export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  const queue: ScriptedTurn[] = [];
  const requests: RecordedRequest[] = [];
  let messageCount = 0;

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const recorded = await recordRequest(req);
      requests.push(recorded);

      if (req.method !== "POST" || recorded.path !== "/v1/messages") {
        return errorResponse({ status: 404, type: "not_found_error", message: `fake-anthropic: no route ${req.method} ${recorded.path}` });
      }
      const next = queue.shift();
      if (!next) {
        return errorResponse({
          status: 500,
          type: "api_error",
          message: `fake-anthropic: no scripted turn left for request #${requests.length} (POST /v1/messages); call script() with more turns`,
        });
      }
      const turn = typeof next === "function" ? await next(recorded) : next;
      const wantsStream = recorded.body?.stream === true;

      if ("error" in turn) {
        if (turn.error.delayMs) await Bun.sleep(turn.error.delayMs);
        if (turn.error.midStream && wantsStream) {
          return sseResponse(midStreamErrorEvents(turn, recorded, ++messageCount));
        }
        return errorResponse(turn.error);
      }
      if (turn.delayMs) await Bun.sleep(turn.delayMs);
      const message = buildMessage(turn, recorded, ++messageCount);
      if (wantsStream) return sseResponse(streamEvents(message, turn.chunkSize ?? 8));
      return Response.json(message, { headers: { "request-id": `req_fake_${messageCount}` } });
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    script(turns) {
      queue.push(...turns);
    },
    requests,
    messageRequests: () => requests.filter((r) => r.method === "POST" && r.path === "/v1/messages"),
    remaining: () => queue.length,
    async close() {
      await server.stop(true);
    },
  };
}

async function recordRequest(req: Request): Promise<RecordedRequest> {
  const headers: Record<string, string> = {};
  req.headers.forEach((value, key) => {
    headers[key.toLowerCase()] = value;
  });
  const text = await req.text();
  let body: unknown;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  }
  return { method: req.method, path: new URL(req.url).pathname, headers, body };
}

function errorResponse(e: ScriptedError["error"]): Response {
  const headers: Record<string, string> = { "request-id": `req_fake_err_${e.status}`, ...(e.headers ?? {}) };
  if (e.retryAfterSeconds !== undefined) headers["retry-after"] = String(e.retryAfterSeconds);
  if (e.shouldRetry !== undefined) headers["x-should-retry"] = String(e.shouldRetry);
  return Response.json({ type: "error", error: { type: e.type, message: e.message } }, { status: e.status, headers });
}

interface WireMessage {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: FakeContentBlock[];
  stop_reason: FakeStopReason;
  stop_sequence: null;
  usage: Required<FakeUsage>;
}

function buildMessage(turn: ScriptedMessage, req: RecordedRequest, n: number): WireMessage {
  const hasToolUse = turn.content.some((b) => b.type === "tool_use");
  return {
    id: turn.id ?? `msg_fake_${n}`,
    type: "message",
    role: "assistant",
    model: turn.model ?? String(req.body?.model ?? "claude-fake"),
    content: turn.content,
    stop_reason: turn.stop_reason ?? (hasToolUse ? "tool_use" : "end_turn"),
    stop_sequence: null,
    usage: {
      input_tokens: turn.usage?.input_tokens ?? 10,
      output_tokens: turn.usage?.output_tokens ?? 5,
      cache_read_input_tokens: turn.usage?.cache_read_input_tokens ?? 0,
      cache_creation_input_tokens: turn.usage?.cache_creation_input_tokens ?? 0,
    },
  };
}

type SseEvent = { event: string; data: unknown };

function chunks(s: string, size: number): string[] {
  if (s.length === 0) return [];
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

function messageStartEvent(m: WireMessage): SseEvent {
  return {
    event: "message_start",
    data: {
      type: "message_start",
      message: { ...m, content: [], stop_reason: null, usage: { ...m.usage, output_tokens: 1 } },
    },
  };
}

function streamEvents(m: WireMessage, chunkSize: number): SseEvent[] {
  const events: SseEvent[] = [messageStartEvent(m), { event: "ping", data: { type: "ping" } }];
  m.content.forEach((block, index) => {
    if (block.type === "text") {
      events.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block: { type: "text", text: "" } } });
      for (const piece of chunks(block.text, chunkSize)) {
        events.push({ event: "content_block_delta", data: { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } } });
      }
    } else {
      events.push({
        event: "content_block_start",
        data: { type: "content_block_start", index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } },
      });
      for (const piece of chunks(JSON.stringify(block.input ?? {}), chunkSize)) {
        events.push({
          event: "content_block_delta",
          data: { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } },
        });
      }
    }
    events.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
  });
  events.push({
    event: "message_delta",
    data: {
      type: "message_delta",
      delta: { stop_reason: m.stop_reason, stop_sequence: null },
      usage: {
        output_tokens: m.usage.output_tokens,
        input_tokens: m.usage.input_tokens,
        cache_read_input_tokens: m.usage.cache_read_input_tokens,
        cache_creation_input_tokens: m.usage.cache_creation_input_tokens,
      },
    },
  });
  events.push({ event: "message_stop", data: { type: "message_stop" } });
  return events;
}

function midStreamErrorEvents(turn: ScriptedError, req: RecordedRequest, n: number): SseEvent[] {
  const m = buildMessage({ content: [] }, req, n);
  return [
    messageStartEvent(m),
    { event: "error", data: { type: "error", error: { type: turn.error.type, message: turn.error.message } } },
  ];
}

function sseResponse(events: SseEvent[]): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // One enqueue per event so the client's SSE parser sees realistic chunk boundaries.
      for (const e of events) controller.enqueue(encoder.encode(`event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`));
      controller.close();
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": "req_fake_stream" },
  });
}

import {
  checkContextWindow,
  checkRequest,
  estimateTokens,
  prefixHash,
  redactedData,
  rulesFor,
  signThinking,
  thinkingPlan,
  type ContractError,
  type IssuedThinking,
} from "./contract.ts";

/**
 * A fake Anthropic Messages API on 127.0.0.1 for tests that drive the real `@anthropic-ai/sdk`,
 * as strict as the real one: every request is checked against the documented contract of the model
 * it names (contract.ts, models.ts — each rule cites its docs page) and a request the real API
 * would reject is answered with the same status and error shape (`request_id` included), recorded
 * in `violations`, and never consumes a scripted turn.
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
 * await api.close();
 * ```
 *
 * Each valid `POST /v1/messages` consumes the next scripted turn. Thinking is emulated per model:
 * when the request has thinking on (explicitly or by the model's default), the message starts with a
 * signed thinking block (empty text when the display is "omitted"), streamed with thinking_delta and
 * signature_delta. The signature binds the block to its model, its text and everything before it, so
 * a block that is edited, moved after a changed prefix, or dropped from a tool loop is a 400.
 * Usage is computed (characters / 4) with prompt-cache reads and writes unless the script gives it.
 * An error turn is served as the API's error JSON with its status (or, with `midStream`, as an SSE
 * `error` event after message_start). An empty queue answers 500 naming the problem.
 */

/** A content block the fake can return. Thinking blocks get their signature (or data) from the fake. */
export type FakeContentBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "thinking"; thinking: string }
  | { type: "redacted_thinking" };

export interface FakeUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

// Every stop reason the API documents (DOCS.stopReasons).
export type FakeStopReason =
  | "end_turn"
  | "tool_use"
  | "max_tokens"
  | "stop_sequence"
  | "refusal"
  | "pause_turn"
  | "model_context_window_exceeded";

/** A successful assistant message. */
export interface ScriptedMessage {
  content: FakeContentBlock[];
  /** Defaults to "tool_use" when a tool_use block is present, else "end_turn". */
  stop_reason?: FakeStopReason;
  /**
   * With stop_reason "refusal": the category and human-readable explanation of `stop_details`
   * (DOCS.streamingRefusals: always present on a refusal, on message_delta when streaming; each
   * field may be null). Ignored for other stop reasons, whose stop_details is null.
   */
  refusal?: { category?: string | null; explanation?: string | null };
  /**
   * Usage to report. Fields left out are computed from the request: input tokens as characters / 4,
   * cache reads / writes from the cache_control breakpoints of earlier requests (DOCS.promptCaching).
   */
  usage?: FakeUsage;
  /** Defaults to the request's `model`. */
  model?: string;
  /** Defaults to a generated `msg_fake_<n>`. */
  id?: string;
  /** Characters per text_delta / input_json_delta when streaming (default 8). */
  chunkSize?: number;
  /** Wait this long before answering (for abort / timeout tests). */
  delayMs?: number;
  /**
   * When streaming: send the events up to the `afterTextDeltas`-th `text_delta`, call `onHeld`, and
   * hold the stream open until `until` settles (a process killed while the model streams).
   */
  holdStream?: { afterTextDeltas: number; until: Promise<unknown>; onHeld?: () => void };
  /**
   * The thinking the model "did" when the request has thinking on and the script gives no thinking
   * block: its text is returned when the display mode returns text. `false`: no thinking block.
   */
  thinking?: string | false;
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
    /**
     * With `midStream`: text streamed (a text block's start and deltas, no stop) before the error
     * event, as when an overload interrupts a reply that had begun.
     */
    partialText?: string;
    /**
     * With `midStream`: a tool_use block begun after any `partialText` — its start and the first
     * `input_json_delta`s of `partialJson` (incomplete JSON) — before the error event.
     */
    partialToolUse?: { id: string; name: string; partialJson: string };
    delayMs?: number;
    /** Extra fields of the `error` object (e.g. `details: { error_code }`). */
    extra?: Record<string, unknown>;
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
  // The body is whatever the client sent.
  body: any;
}

/** A request the fake answered with a contract error (what the real API would reject). */
export interface ContractViolation {
  readonly request: RecordedRequest;
  readonly status: number;
  readonly type: string;
  readonly message: string;
}

export interface FakeAnthropicOptions {
  /**
   * The context window every request must fit (estimated tokens of system, tools and messages),
   * instead of the model's own (models.ts): lets a test fill a window with a small conversation.
   */
  contextWindowTokens?: number;
}

export interface FakeAnthropic {
  /** Base URL to pass as the SDK's `baseURL` (no trailing slash, no `/v1`). */
  url: string;
  /** Append turns to the queue; each valid POST /v1/messages consumes one. */
  script(turns: ScriptedTurn[]): void;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Requests to POST /v1/messages only. */
  messageRequests(): RecordedRequest[];
  /** Requests the fake rejected because the real API would have (see contract.ts). */
  violations: ContractViolation[];
  /** Usage reported for each message served, in order (to measure cache hit rates). */
  served: Array<{ model: string; usage: Required<FakeUsage> }>;
  /** Sets (or with undefined, clears) the context window requests must fit (FakeAnthropicOptions). */
  setContextWindow(tokens: number | undefined): void;
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
    error: {
      status: 401,
      type: "authentication_error",
      message: "OAuth token has expired. Please obtain a new token or refresh your existing token.",
    },
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
  overloaded: (
    opts: Pick<ScriptedError["error"], "midStream" | "partialText" | "partialToolUse"> = {},
  ): ScriptedError => ({
    error: { status: 529, type: "overloaded_error", message: "Overloaded", ...opts },
  }),
  billing: (): ScriptedError => ({
    error: {
      status: 400,
      type: "billing_error",
      message:
        "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.",
    },
  }),
  promptTooLong: (tokens = 210_000, max = 200_000): ScriptedError => ({
    error: {
      status: 400,
      type: "invalid_request_error",
      message: `prompt is too long: ${tokens} tokens > ${max} maximum`,
    },
  }),
  /** 413 request_too_large, sent by Cloudflare before the request reaches the API (docs: errors). */
  requestTooLarge: (): ScriptedError => ({
    error: { status: 413, type: "request_too_large", message: "Request exceeds the maximum allowed number of bytes." },
  }),
  /** The known rejection of an OAuth (setup-token) credential on the Messages API. */
  oauthNotSupported: (): ScriptedError => ({
    error: { status: 401, type: "authentication_error", message: "OAuth authentication is currently not supported." },
  }),
  /** The bare rejection some setup-tokens got: a 400 whose message is only "Error". */
  bareError: (): ScriptedError => ({ error: { status: 400, type: "invalid_request_error", message: "Error" } }),
  /** A workspace / organization spend limit: billing_error with HTTP 402. */
  spendLimit: (): ScriptedError => ({
    error: {
      status: 402,
      type: "billing_error",
      message:
        "You have reached your specified workspace API usage limits. You will regain access on 2026-12-01 at 00:00 UTC.",
    },
  }),
  apiError: (status = 500): ScriptedError => ({
    error: { status, type: "api_error", message: "Internal server error" },
  }),
};

export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const queue: ScriptedTurn[] = [];
  const requests: RecordedRequest[] = [];
  const violations: ContractViolation[] = [];
  const served: FakeAnthropic["served"] = [];
  const issued: IssuedThinking = new Map();
  // Cached prefixes (hash → expiry). DOCS.promptCaching: default TTL 5 minutes, "1h" on request.
  const cache = new Map<string, number>();
  let messageCount = 0;
  let requestCount = 0;
  let contextWindowTokens = options.contextWindowTokens;

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const recorded = await recordRequest(req);
      requests.push(recorded);
      const requestId = `req_fake_${String(++requestCount).padStart(6, "0")}`;

      if (req.method === "POST" && recorded.path === "/v1/messages/count_tokens") {
        // DOCS.messages (token counting): the same body minus max_tokens; answers { input_tokens }.
        const problem = checkRequest({ ...recorded.body, max_tokens: 1 }, issued);
        if (problem) return contractError(problem, recorded, requestId);
        return Response.json({ input_tokens: estimateTokens(recorded.body) }, { headers: { "request-id": requestId } });
      }
      if (req.method !== "POST" || recorded.path !== "/v1/messages") {
        return errorResponse(
          { status: 404, type: "not_found_error", message: `fake-anthropic: no route ${req.method} ${recorded.path}` },
          requestId,
        );
      }
      const problem = checkRequest(recorded.body, issued);
      if (problem) return contractError(problem, recorded, requestId);
      // Too long for the window: the documented error, not a contract violation of the client's
      // (it cannot count tokens exactly), and it consumes no scripted turn.
      const window = contextWindowTokens ?? rulesFor(recorded.body.model)?.contextWindow;
      const tooLong = window !== undefined ? checkContextWindow(recorded.body, window) : undefined;
      if (tooLong) return errorResponse(tooLong, requestId);
      const next = queue.shift();
      if (!next) {
        return errorResponse(
          {
            status: 500,
            type: "api_error",
            message: `fake-anthropic: no scripted turn left for request #${requests.length} (POST /v1/messages); call script() with more turns`,
          },
          requestId,
        );
      }
      const turn = typeof next === "function" ? await next(recorded) : next;
      const wantsStream = recorded.body?.stream === true;

      if ("error" in turn) {
        if (turn.error.delayMs) await Bun.sleep(turn.error.delayMs);
        if (turn.error.midStream && wantsStream) {
          return sseResponse(midStreamErrorEvents(turn, recorded, ++messageCount), requestId, turn.error.headers);
        }
        return errorResponse(turn.error, requestId);
      }
      if (turn.delayMs) await Bun.sleep(turn.delayMs);
      const message = buildMessage(turn, recorded, ++messageCount, issued, cache);
      served.push({ model: message.model, usage: message.usage });
      if (wantsStream) return sseResponse(streamEvents(message, turn.chunkSize ?? 8), requestId, {}, turn.holdStream);
      return Response.json(message, { headers: { "request-id": requestId } });
    },
  });

  function contractError(problem: ContractError, request: RecordedRequest, requestId: string): Response {
    violations.push({ request, ...problem });
    return errorResponse(problem, requestId);
  }

  return {
    url: `http://127.0.0.1:${server.port}`,
    script(turns) {
      queue.push(...turns);
    },
    requests,
    violations,
    served,
    messageRequests: () => requests.filter((r) => r.method === "POST" && r.path === "/v1/messages"),
    remaining: () => queue.length,
    setContextWindow(tokens) {
      contextWindowTokens = tokens;
    },
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

// DOCS.errors: errors are JSON `{ type: "error", error: { type, message }, request_id }`, and every
// response carries a `request-id` header.
function errorResponse(e: ScriptedError["error"] | ContractError, requestId: string): Response {
  const scripted = e as ScriptedError["error"];
  const headers: Record<string, string> = { "request-id": requestId, ...(scripted.headers ?? {}) };
  if (scripted.retryAfterSeconds !== undefined) headers["retry-after"] = String(scripted.retryAfterSeconds);
  if (scripted.shouldRetry !== undefined) headers["x-should-retry"] = String(scripted.shouldRetry);
  return Response.json(
    { type: "error", error: { type: e.type, message: e.message, ...(scripted.extra ?? {}) }, request_id: requestId },
    { status: e.status, headers },
  );
}

type WireBlock =
  | { type: "text"; text: string; citations: null }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string };

interface WireMessage {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: WireBlock[];
  stop_reason: FakeStopReason;
  stop_sequence: string | null;
  stop_details: { type: "refusal"; category: string | null; explanation: string | null } | null;
  usage: Required<FakeUsage>;
}

/** The blocks the model returns for this request: thinking as the model's settings produce it, then the script. */
function responseBlocks(turn: ScriptedMessage, req: RecordedRequest): FakeContentBlock[] {
  const rules = rulesFor(req.body?.model);
  const plan = rules ? thinkingPlan(req.body, rules) : { mode: "off" as const, display: "omitted" as const };
  const scripted = turn.content;
  // No thinking without thinking on (DOCS.migrationSonnet55 table: Haiku 4.5 does not think unless asked).
  if (plan.mode === "off") return scripted.filter((b) => b.type !== "thinking" && b.type !== "redacted_thinking");
  if (scripted.some((b) => b.type === "thinking" || b.type === "redacted_thinking") || turn.thinking === false)
    return scripted;
  const hasToolUse = scripted.some((b) => b.type === "tool_use");
  if (plan.mode === "between_tools") {
    // DOCS.whatsNewSonnet55: with between_tools, the short progress updates written between tool calls
    // still come back as thinking blocks, with their summary text; a reply without tools is text only.
    return hasToolUse
      ? [{ type: "thinking", thinking: turn.thinking ?? "Progress: calling a tool." }, ...scripted]
      : scripted;
  }
  // Adaptive / enabled: a thinking block first; display "omitted" returns empty thinking text with the
  // signature (DOCS.thinking, "Controlling thinking display").
  const text = plan.display === "summarized" ? (turn.thinking ?? "Thinking about the request.") : "";
  return [{ type: "thinking", thinking: text }, ...scripted];
}

function buildMessage(
  turn: ScriptedMessage,
  req: RecordedRequest,
  n: number,
  issued: IssuedThinking,
  cache: Map<string, number>,
): WireMessage {
  const model = turn.model ?? String(req.body?.model ?? "claude-fake");
  const blocks = responseBlocks(turn, req);
  const params: unknown[] = [];
  const content: WireBlock[] = [];
  const msgIndex = Array.isArray(req.body?.messages) ? req.body.messages.length : 0;
  for (const b of blocks) {
    let wire: WireBlock;
    if (b.type === "thinking") {
      wire = {
        type: "thinking",
        thinking: b.thinking,
        signature: signThinking(model, b.thinking, prefixHash(req.body ?? {}, msgIndex, params.length, params)),
      };
    } else if (b.type === "redacted_thinking") {
      wire = {
        type: "redacted_thinking",
        data: redactedData(model, prefixHash(req.body ?? {}, msgIndex, params.length, params)),
      };
    } else if (b.type === "text") {
      wire = { type: "text", text: b.text, citations: null };
    } else {
      wire = b;
    }
    content.push(wire);
    params.push(wire.type === "text" ? { type: "text", text: wire.text } : wire);
  }
  const thinkingBlocks = content.filter((b) => b.type === "thinking" || b.type === "redacted_thinking");
  for (const b of content) if (b.type === "tool_use") issued.set(b.id, thinkingBlocks);

  const hasToolUse = content.some((b) => b.type === "tool_use");
  const computed = computeUsage(req.body ?? {}, cache);
  return {
    id: turn.id ?? `msg_fake_${n}`,
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: turn.stop_reason ?? (hasToolUse ? "tool_use" : "end_turn"),
    stop_sequence: turn.stop_reason === "stop_sequence" ? String(req.body?.stop_sequences?.[0] ?? "") : null,
    stop_details:
      turn.stop_reason === "refusal"
        ? { type: "refusal", category: turn.refusal?.category ?? null, explanation: turn.refusal?.explanation ?? null }
        : null,
    usage: turn.usage
      ? {
          input_tokens: turn.usage.input_tokens ?? 10,
          output_tokens: turn.usage.output_tokens ?? 5,
          cache_read_input_tokens: turn.usage.cache_read_input_tokens ?? 0,
          cache_creation_input_tokens: turn.usage.cache_creation_input_tokens ?? 0,
        }
      : { ...computed, output_tokens: Math.max(1, estimateTokens(content)) },
  };
}

/**
 * Prompt caching as documented (DOCS.promptCaching): a breakpoint caches the prefix up to its block;
 * a later request reads the longest cached prefix found at a breakpoint or up to 20 blocks before
 * it; prefixes shorter than the model's minimum are not cached.
 */
function computeUsage(body: any, cache: Map<string, number>): Omit<Required<FakeUsage>, "output_tokens"> {
  const rules = rulesFor(body.model);
  const minimum = rules?.minCacheableTokens ?? 1024;
  const positions = cachePositions(body);
  const total = positions.at(-1)?.tokens ?? estimateTokens(body.messages);
  const now = Date.now();
  let read = 0;
  for (const p of positions.filter((x) => x.marked).reverse()) {
    const start = positions.indexOf(p);
    for (let k = start; k >= Math.max(0, start - 20); k--) {
      const hit = cache.get(positions[k]!.hash);
      if (hit !== undefined && hit > now && positions[k]!.tokens >= minimum) {
        read = Math.max(read, positions[k]!.tokens);
        break;
      }
    }
  }
  let written = 0;
  for (const p of positions.filter((x) => x.marked)) {
    if (p.tokens < minimum) continue;
    cache.set(p.hash, now + (p.ttl === "1h" ? 3_600_000 : 300_000));
    written = Math.max(written, p.tokens);
  }
  const creation = Math.max(0, written - read);
  return {
    input_tokens: Math.max(1, total - read - creation),
    cache_read_input_tokens: read,
    cache_creation_input_tokens: creation,
  };
}

function cachePositions(body: any): Array<{ hash: string; tokens: number; marked: boolean; ttl?: string }> {
  const out: Array<{ hash: string; tokens: number; marked: boolean; ttl?: string }> = [];
  const parts: unknown[] = [];
  let tokens = 0;
  const push = (block: any, extra?: unknown) => {
    const clean = stripMarkers(block);
    parts.push(extra === undefined ? clean : { ...(extra as object), block: clean });
    tokens += estimateTokens(clean);
    out.push({ hash: hashParts(parts), tokens, marked: Boolean(block?.cache_control), ttl: block?.cache_control?.ttl });
  };
  for (const t of body.tools ?? []) push(t);
  const system = typeof body.system === "string" ? [{ type: "text", text: body.system }] : (body.system ?? []);
  for (const b of system) push(b);
  for (const m of body.messages ?? []) {
    const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content ?? []);
    for (const b of blocks) push(b, { role: m.role });
  }
  // Automatic caching (DOCS.promptCaching): a top-level cache_control marks the last cacheable block.
  const last = out.at(-1);
  if (body.cache_control && last)
    out[out.length - 1] = { ...last, marked: true, ttl: body.cache_control.ttl ?? last.ttl };
  return out;
}

function stripMarkers(value: any): any {
  if (Array.isArray(value)) return value.map(stripMarkers);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort())
      if (key !== "cache_control" && key !== "citations") out[key] = stripMarkers(value[key]);
    return out;
  }
  return value;
}

function hashParts(parts: unknown[]): string {
  return new Bun.CryptoHasher("sha256").update(JSON.stringify(parts)).digest("hex");
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
      message: {
        ...m,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        usage: { ...m.usage, output_tokens: 1 },
      },
    },
  };
}

// DOCS.streaming: message_start, content_block_start / delta / stop per block (text_delta,
// input_json_delta, thinking_delta, then signature_delta just before the thinking block's stop),
// message_delta with stop_reason and usage, message_stop.
function streamEvents(m: WireMessage, chunkSize: number): SseEvent[] {
  const events: SseEvent[] = [messageStartEvent(m), { event: "ping", data: { type: "ping" } }];
  const delta = (index: number, d: unknown): SseEvent => ({
    event: "content_block_delta",
    data: { type: "content_block_delta", index, delta: d },
  });
  m.content.forEach((block, index) => {
    const start = (content_block: unknown) =>
      events.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block } });
    if (block.type === "text") {
      start({ type: "text", text: "", citations: null });
      for (const piece of chunks(block.text, chunkSize)) events.push(delta(index, { type: "text_delta", text: piece }));
    } else if (block.type === "thinking") {
      start({ type: "thinking", thinking: "", signature: "" });
      for (const piece of chunks(block.thinking, chunkSize))
        events.push(delta(index, { type: "thinking_delta", thinking: piece }));
      events.push(delta(index, { type: "signature_delta", signature: block.signature }));
    } else if (block.type === "redacted_thinking") {
      start(block);
    } else {
      start({ type: "tool_use", id: block.id, name: block.name, input: {} });
      for (const piece of chunks(JSON.stringify(block.input ?? {}), chunkSize))
        events.push(delta(index, { type: "input_json_delta", partial_json: piece }));
    }
    events.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
  });
  events.push({
    event: "message_delta",
    data: {
      type: "message_delta",
      delta: { stop_reason: m.stop_reason, stop_sequence: m.stop_sequence, stop_details: m.stop_details },
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

// DOCS.errors: "When receiving a streaming response via SSE, it's possible that an error can occur
// after returning a 200 response"; DOCS.streaming ("Error events"): during high usage an
// `overloaded_error` arrives in the stream as `event: error` with
// `data: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}`, which
// may follow content deltas already sent (`partialText`).
function midStreamErrorEvents(turn: ScriptedError, req: RecordedRequest, n: number): SseEvent[] {
  const m: WireMessage = {
    id: `msg_fake_${n}`,
    type: "message",
    role: "assistant",
    model: String(req.body?.model ?? "claude-fake"),
    content: [],
    stop_reason: "end_turn",
    stop_sequence: null,
    stop_details: null,
    usage: { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
  };
  // The error cuts the last block short (no content_block_stop); a text block followed by a tool_use ended first.
  const partial: SseEvent[] = [];
  const { partialText, partialToolUse } = turn.error;
  const push = (event: string, data: Record<string, unknown>) =>
    partial.push({ event, data: { type: event, ...data } });
  if (partialText) {
    push("content_block_start", { index: 0, content_block: { type: "text", text: "", citations: null } });
    for (const text of chunks(partialText, 8))
      push("content_block_delta", { index: 0, delta: { type: "text_delta", text } });
    if (partialToolUse) push("content_block_stop", { index: 0 });
  }
  if (partialToolUse) {
    const index = partialText ? 1 : 0;
    const { id, name, partialJson } = partialToolUse;
    push("content_block_start", { index, content_block: { type: "tool_use", id, name, input: {} } });
    for (const json of chunks(partialJson, 8))
      push("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: json } });
  }
  return [
    messageStartEvent(m),
    ...partial,
    { event: "error", data: { type: "error", error: { type: turn.error.type, message: turn.error.message } } },
  ];
}

/** The index after the `n`-th `text_delta` event (the whole stream when it has fewer). */
function holdPoint(events: readonly SseEvent[], n: number): number {
  let seen = 0;
  const at = events.findIndex(
    (e) => (e.data as { delta?: { type?: string } }).delta?.type === "text_delta" && ++seen === n,
  );
  return at < 0 ? events.length : at + 1;
}

function sseResponse(
  events: SseEvent[],
  requestId: string,
  headers: Record<string, string> = {},
  hold?: ScriptedMessage["holdStream"],
): Response {
  const encoder = new TextEncoder();
  let next = 0;
  const split = hold ? holdPoint(events, hold.afterTextDeltas) : events.length;
  const send = (controller: ReadableStreamDefaultController<Uint8Array>, e: SseEvent) =>
    controller.enqueue(encoder.encode(`event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`));
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (hold) return;
      // One enqueue per event so the client's SSE parser sees realistic chunk boundaries.
      for (const e of events) send(controller, e);
      controller.close();
    },
    // Held: one event a pull, so what was sent reaches the client; at the hold point it waits.
    async pull(controller) {
      if (!hold) return;
      if (next === split) {
        hold.onHeld?.();
        await hold.until.catch(() => {});
      }
      const e = events[next++];
      if (e) send(controller, e);
      else controller.close();
    },
  });
  return new Response(body, {
    headers: { ...headers, "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": requestId },
  });
}

/**
 * The documented rules of the Chat Completions API (`POST /v1/chat/completions`) the fake enforces.
 * A request breaking one is answered as the real service answers it (status, `error.type`,
 * `error.param`, `error.code`, and the message it sends), recorded as a violation, and fails the test
 * that sent it. Where OpenAI and Ollama differ, the fake takes the stricter of the two, so a request
 * that passes here passes on both.
 */

/** The pages each rule comes from (as of 2026-11). */
export const OPENAI_DOCS = {
  /** Request body of Create chat completion: fields, types, message roles. */
  create: "https://platform.openai.com/docs/api-reference/chat/create",
  /** The streamed chunk object (`chat.completion.chunk`), `data: [DONE]`, the usage chunk. */
  streaming: "https://platform.openai.com/docs/api-reference/chat-streaming/streaming",
  /** The response object: `choices[].finish_reason`, `usage`. */
  object: "https://platform.openai.com/docs/api-reference/chat/object",
  /** Function calling: tool_calls, tool messages answer each tool_call_id. */
  functionCalling: "https://platform.openai.com/docs/guides/function-calling",
  /** Error codes and the error body `{ error: { message, type, param, code } }`. */
  errors: "https://platform.openai.com/docs/guides/error-codes",
  /** GET /v1/models. */
  models: "https://platform.openai.com/docs/api-reference/models/list",
  /** Ollama's OpenAI compatibility: the supported request fields. */
  ollama: "https://docs.ollama.com/api/openai-compatibility",
} as const;

/** What a model of the fake accepts. */
export interface FakeChatModel {
  readonly id: string;
  /** False: the model has no tool support; a request with `tools` is a 400 (Ollama: "does not support tools"). */
  readonly tools: boolean;
  readonly contextWindow: number;
  readonly maxOutput: number;
}

export interface ChatContractError {
  readonly status: number;
  readonly type: string;
  readonly code: string | null;
  readonly param: string | null;
  readonly message: string;
}

/**
 * Top-level fields accepted: those of OpenAI's create-chat-completion body that Ollama's
 * compatibility page also lists (OPENAI_DOCS.create ∩ OPENAI_DOCS.ollama). OpenAI answers any other
 * name with 400 "Unrecognized request argument supplied".
 */
const ACCEPTED_FIELDS = new Set([
  "model",
  "messages",
  "frequency_penalty",
  "presence_penalty",
  "response_format",
  "seed",
  "stop",
  "stream",
  "stream_options",
  "temperature",
  "top_p",
  "max_tokens",
  "tools",
  "tool_choice",
  "reasoning_effort",
  "logit_bias",
  "user",
  "n",
]);

// OPENAI_DOCS.create: the message roles of the Chat Completions API.
const ROLES = new Set(["system", "developer", "user", "assistant", "tool"]);
// OPENAI_DOCS.create (tools[].function.name): a-z, A-Z, 0-9, underscores and dashes, at most 64.
const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const invalid = (message: string, param: string | null, code: string | null = null): ChatContractError => ({
  status: 400,
  type: "invalid_request_error",
  code,
  param,
  message,
});

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const typeName = (v: unknown) =>
  v === null ? "null" : Array.isArray(v) ? "an array" : typeof v === "object" ? "an object" : `a ${typeof v}`;

/** The first rule a request body breaks for this fake's models, or undefined when it is valid. */
export function checkChatRequest(
  body: unknown,
  models: ReadonlyMap<string, FakeChatModel>,
): ChatContractError | undefined {
  if (!isObject(body)) return invalid("We could not parse the JSON body of your request.", null);
  for (const key of Object.keys(body))
    if (!ACCEPTED_FIELDS.has(key)) return invalid(`Unrecognized request argument supplied: ${key}`, key);
  // OPENAI_DOCS.create: `model` and `messages` are required.
  if (typeof body.model !== "string" || !body.model) return invalid("you must provide a model parameter", "model");
  const model = models.get(body.model);
  // OPENAI_DOCS.errors: an unknown model is a 404 model_not_found.
  if (!model)
    return {
      status: 404,
      type: "invalid_request_error",
      code: "model_not_found",
      param: "model",
      message: `The model \`${body.model}\` does not exist or you do not have access to it.`,
    };
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return invalid("[] is too short - 'messages'", "messages", "empty_array");
  const problem =
    checkStreamFields(body) ?? checkTools(body, model) ?? checkMessages(body.messages) ?? checkMaxTokens(body, model);
  if (problem) return problem;
  return undefined;
}

function checkStreamFields(body: Json): ChatContractError | undefined {
  if (body.stream !== undefined && typeof body.stream !== "boolean")
    return invalid(
      `Invalid type for 'stream': expected a boolean, but got ${typeName(body.stream)} instead.`,
      "stream",
    );
  // OPENAI_DOCS.create (stream_options): "Only set this when you set stream: true".
  if (body.stream_options !== undefined && body.stream_options !== null && body.stream !== true)
    return invalid("The 'stream_options' parameter is only allowed when 'stream' is enabled.", "stream_options");
  if (isObject(body.stream_options))
    for (const key of Object.keys(body.stream_options))
      if (key !== "include_usage" && key !== "include_obfuscation")
        return invalid(`Unrecognized request argument supplied: stream_options.${key}`, `stream_options.${key}`);
  return undefined;
}

function checkTools(body: Json, model: FakeChatModel): ChatContractError | undefined {
  if (body.tools === undefined) {
    // OPENAI_DOCS.create (tool_choice): only meaningful with tools.
    if (body.tool_choice !== undefined)
      return invalid(
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
        "tool_choice",
      );
    return undefined;
  }
  // OPENAI_DOCS.ollama: a model without tool support answers 400 "<model> does not support tools".
  if (!model.tools) return { ...invalid(`${model.id} does not support tools`, "tools"), type: "api_error" };
  if (!Array.isArray(body.tools) || body.tools.length === 0)
    return invalid("[] is too short - 'tools'", "tools", "empty_array");
  for (const [i, tool] of body.tools.entries()) {
    // OPENAI_DOCS.create (tools): `{ type: "function", function: { name, description?, parameters? } }`.
    if (!isObject(tool) || tool.type !== "function" || !isObject(tool.function))
      return invalid(`Missing required parameter: 'tools[${i}].function'.`, `tools[${i}].function`);
    const fn = tool.function;
    if (typeof fn.name !== "string" || !FUNCTION_NAME.test(fn.name))
      return invalid(
        `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
        `tools[${i}].function.name`,
        "invalid_value",
      );
    for (const key of Object.keys(fn))
      if (!["name", "description", "parameters", "strict"].includes(key))
        return invalid(`Unrecognized request argument supplied: tools[${i}].function.${key}`, `tools[${i}].function`);
    if (fn.parameters !== undefined && (!isObject(fn.parameters) || fn.parameters.type !== "object"))
      return invalid(
        `Invalid schema for function '${fn.name}': schema must be a JSON Schema of 'type: "object"'.`,
        `tools[${i}].function.parameters`,
        "invalid_function_parameters",
      );
  }
  const choice = body.tool_choice;
  if (choice !== undefined && !["none", "auto", "required"].includes(choice as string) && !isObject(choice))
    return invalid(
      `Invalid value: '${String(choice)}'. Supported values are: 'none', 'auto', and 'required'.`,
      "tool_choice",
    );
  return undefined;
}

function textContent(content: unknown, param: string, allowNull: boolean): ChatContractError | undefined {
  if (typeof content === "string") return undefined;
  if (content === null || content === undefined) {
    if (allowNull) return undefined;
    return invalid(`Invalid value for '${param}': expected a string, got null.`, param);
  }
  if (!Array.isArray(content))
    return invalid(
      `Invalid type for '${param}': expected one of a string or array of objects, but got ${typeName(content)} instead.`,
      param,
    );
  for (const [i, part] of content.entries())
    if (
      !isObject(part) ||
      (part.type === "text" && typeof part.text !== "string") ||
      !["text", "image_url"].includes(part.type as string)
    )
      return invalid(
        `Invalid value: '${isObject(part) ? String(part.type) : typeName(part)}'. Supported values are: 'text' and 'image_url'.`,
        `${param}[${i}].type`,
      );
  return undefined;
}

/**
 * OPENAI_DOCS.create and OPENAI_DOCS.functionCalling: each message has a known role; an assistant
 * message has content or tool_calls (arguments a JSON string); every tool message answers a
 * tool_call_id of the assistant message right before the run of tool messages, and every tool call
 * of that assistant message is answered before the next non-tool message.
 */
export function checkMessages(messages: readonly unknown[]): ChatContractError | undefined {
  let pending: Set<string> | undefined;
  let answered: Set<string> = new Set();
  for (const [i, m] of messages.entries()) {
    const at = `messages[${i}]`;
    if (!isObject(m))
      return invalid(`Invalid type for '${at}': expected an object, but got ${typeName(m)} instead.`, at);
    if (typeof m.role !== "string" || !ROLES.has(m.role))
      return invalid(
        `Invalid value: '${String(m.role)}'. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'.`,
        `${at}.role`,
      );
    for (const key of Object.keys(m))
      if (!["role", "content", "name", "tool_calls", "tool_call_id", "refusal"].includes(key))
        return invalid(`Unrecognized request argument supplied: ${at}.${key}`, `${at}.${key}`);
    if (m.role !== "tool" && pending) {
      const missing = [...pending].filter((id) => !answered.has(id));
      if (missing.length)
        return invalid(
          `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(", ")}`,
          `${at}.role`,
        );
      pending = undefined;
    }
    if (m.role === "tool") {
      if (typeof m.tool_call_id !== "string")
        return invalid(
          `Missing required parameter: '${at}.tool_call_id'.`,
          `${at}.tool_call_id`,
          "missing_required_parameter",
        );
      if (!pending || !pending.has(m.tool_call_id))
        return invalid(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `${at}.role`,
        );
      answered.add(m.tool_call_id);
      const problem = textContent(m.content, `${at}.content`, false);
      if (problem) return problem;
      continue;
    }
    if (m.tool_call_id !== undefined)
      return invalid(`Unrecognized request argument supplied: ${at}.tool_call_id`, `${at}.tool_call_id`);
    if (m.role === "assistant") {
      const calls = m.tool_calls;
      if (calls !== undefined) {
        if (!Array.isArray(calls) || calls.length === 0)
          return invalid(`[] is too short - '${at}.tool_calls'`, `${at}.tool_calls`, "empty_array");
        const ids = new Set<string>();
        for (const [j, call] of calls.entries()) {
          const cat = `${at}.tool_calls[${j}]`;
          if (!isObject(call) || typeof call.id !== "string" || call.type !== "function" || !isObject(call.function))
            return invalid(`Missing required parameter: '${cat}.function'.`, `${cat}`);
          if (typeof call.function.name !== "string")
            return invalid(`Missing required parameter: '${cat}.function.name'.`, `${cat}.function.name`);
          if (typeof call.function.arguments !== "string")
            return invalid(
              `Invalid type for '${cat}.function.arguments': expected a string, but got ${typeName(call.function.arguments)} instead.`,
              `${cat}.function.arguments`,
            );
          ids.add(call.id);
        }
        pending = ids;
        answered = new Set();
      }
      const problem = textContent(m.content, `${at}.content`, calls !== undefined);
      if (problem) return problem;
      continue;
    }
    if (m.tool_calls !== undefined)
      return invalid(`Unrecognized request argument supplied: ${at}.tool_calls`, `${at}.tool_calls`);
    const problem = textContent(m.content, `${at}.content`, false);
    if (problem) return problem;
  }
  if (pending) {
    const missing = [...pending].filter((id) => !answered.has(id));
    if (missing.length)
      return invalid(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(", ")}`,
        "messages",
      );
  }
  return undefined;
}

function checkMaxTokens(body: Json, model: FakeChatModel): ChatContractError | undefined {
  const max = body.max_tokens;
  if (max === undefined || max === null) return undefined;
  if (typeof max !== "number" || !Number.isInteger(max) || max < 1)
    return invalid(
      `Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got ${String(max)} instead.`,
      "max_tokens",
      "integer_below_min_value",
    );
  // OPENAI_DOCS.errors: more output tokens than the model supports is a 400 naming the limit.
  if (max > model.maxOutput)
    return invalid(
      `max_tokens is too large: ${max}. This model supports at most ${model.maxOutput} completion tokens, whereas you provided ${max}.`,
      "max_tokens",
      "invalid_value",
    );
  return undefined;
}

/** Characters / 4 of everything the model reads: the fake's token count (usage, context window). */
export function estimatePromptTokens(body: Json): number {
  return Math.ceil(JSON.stringify([body.messages, body.tools ?? null]).length / 4);
}

/**
 * OPENAI_DOCS.errors: a prompt longer than the context window is a 400 `context_length_exceeded`
 * (a documented error, not a client mistake: the client cannot count tokens exactly).
 */
export function checkContextLength(body: Json, model: FakeChatModel): ChatContractError | undefined {
  const tokens = estimatePromptTokens(body) + (typeof body.max_tokens === "number" ? body.max_tokens : 0);
  if (tokens <= model.contextWindow) return undefined;
  return invalid(
    `This model's maximum context length is ${model.contextWindow} tokens. However, you requested ${tokens} tokens. Please reduce the length of the messages or completion.`,
    "messages",
    "context_length_exceeded",
  );
}

import { createHash, createHmac, randomBytes } from "node:crypto";
import { DOCS, FAKE_MODELS, type FakeModelRules, type FakeThinkingType } from "./models.ts";

/**
 * The request rules of the Messages API the fake enforces. Each rule names the page that documents
 * it; a request the real API would reject gets the same status and error type here.
 */

// Request bodies are whatever the client sent.
type Json = any;

export interface ContractError {
  readonly status: number;
  readonly type: string;
  readonly message: string;
}

/** How thinking runs for one request, after the model's defaults are applied. */
export interface ThinkingPlan {
  readonly mode: "off" | FakeThinkingType;
  readonly display: "omitted" | "summarized";
}

const SECRET = randomBytes(16).toString("hex");

const sha = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 24);

/** The request as the API compares prefixes: cache_control markers do not count. */
function canonical(value: Json): Json {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    const out: Record<string, Json> = {};
    for (const key of Object.keys(value).sort()) {
      if (key === "cache_control" || key === "citations") continue;
      out[key] = canonical(value[key]);
    }
    return out;
  }
  return value;
}

function systemBlocks(system: Json): Json[] {
  if (system === undefined || system === null) return [];
  return typeof system === "string" ? [{ type: "text", text: system }] : system;
}

function contentBlocks(content: Json): Json[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : [];
}

/**
 * The prefix of a thinking block: top-level system, tools, and everything in messages before it
 * (DOCS.preservedThinking: "The top-level system prompt, tools, and messages before the block are its prefix").
 */
export function prefixHash(body: Json, messageIndex: number, blockIndex: number, extraBlocks: Json[] = []): string {
  const messages = (body.messages ?? [])
    .slice(0, messageIndex)
    .map((m: Json) => ({ role: m.role, content: contentBlocks(m.content) }));
  const current =
    messageIndex < (body.messages ?? []).length
      ? contentBlocks(body.messages[messageIndex].content).slice(0, blockIndex)
      : extraBlocks.slice(0, blockIndex);
  return sha(
    JSON.stringify(canonical({ system: systemBlocks(body.system), tools: body.tools ?? [], messages, current })),
  );
}

/** A signature binding a thinking block to its text, model and prefix (opaque to the client). */
export function signThinking(model: string, text: string, prefix: string): string {
  const payload = Buffer.from(JSON.stringify({ m: model, t: sha(text), p: prefix })).toString("base64url");
  const mac = createHmac("sha256", SECRET).update(payload).digest("base64url");
  return `${payload}.${mac}`;
}

export function redactedData(model: string, prefix: string): string {
  return signThinking(model, "[redacted]", prefix);
}

function readSignature(sig: unknown): { m: string; t: string; p: string } | undefined {
  if (typeof sig !== "string") return undefined;
  const [payload, mac] = sig.split(".");
  if (!payload || !mac || createHmac("sha256", SECRET).update(payload).digest("base64url") !== mac) return undefined;
  try {
    return JSON.parse(Buffer.from(payload, "base64url").toString());
  } catch {
    return undefined;
  }
}

const invalid = (message: string, docs: string): ContractError => ({
  status: 400,
  type: "invalid_request_error",
  message: `${message} (see ${docs})`,
});

/**
 * The prompt must fit the model's context window (DOCS.contextWindows; the error's shape as
 * DOCS.errors shows it: 400 invalid_request_error "prompt is too long: N tokens > M maximum").
 * Tokens are estimated as characters / 4 of the system prompt, tools and messages.
 */
export function checkContextWindow(body: Json, windowTokens: number): ContractError | undefined {
  const tokens = estimateTokens({ system: body.system, tools: body.tools, messages: body.messages });
  if (tokens <= windowTokens) return undefined;
  return {
    status: 400,
    type: "invalid_request_error",
    message: `prompt is too long: ${tokens} tokens > ${windowTokens} maximum`,
  };
}

export function rulesFor(model: unknown): FakeModelRules | undefined {
  return typeof model === "string" ? FAKE_MODELS[model] : undefined;
}

export function thinkingPlan(body: Json, rules: FakeModelRules): ThinkingPlan {
  const t = body.thinking;
  if (!t) return { mode: rules.thinkingWhenOmitted, display: rules.defaultDisplay };
  if (t.type === "disabled") return { mode: "off", display: rules.defaultDisplay };
  return { mode: t.type, display: t.display ?? rules.defaultDisplay };
}

/** What the fake remembers of the thinking blocks it returned next to each tool_use. */
export type IssuedThinking = Map<string, Json[]>;

/**
 * Checks one POST /v1/messages body against the documented contract. Returns the error the real
 * API would answer with, or undefined when the request is valid.
 */
export function checkRequest(body: Json, issued: IssuedThinking): ContractError | undefined {
  if (!body || typeof body !== "object") return invalid("Request body must be a JSON object", DOCS.messages);
  const rules = rulesFor(body.model);
  // DOCS.errors: 404 not_found_error — the requested resource (here the model) was not found.
  if (!rules) return { status: 404, type: "not_found_error", message: `model: ${String(body.model)}` };
  // DOCS.messages: max_tokens is required; DOCS.modelsOverview: each model's max output.
  if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1)
    return invalid("max_tokens: Field required (a positive integer)", DOCS.messages);
  if (body.max_tokens > rules.maxOutput)
    return invalid(
      `max_tokens: ${body.max_tokens} > ${rules.maxOutput}, which is the maximum allowed number of output tokens for ${body.model}`,
      DOCS.modelsOverview,
    );
  const messages: Json[] = body.messages;
  if (!Array.isArray(messages) || messages.length === 0)
    return invalid("messages: at least one message is required", DOCS.messages);

  // Sampling parameters (DOCS.migrationSonnet55, DOCS.migrationSonnet5).
  if (rules.rejectsSampling) {
    for (const p of ["temperature", "top_p", "top_k"]) {
      if (body[p] !== undefined)
        return invalid(
          `${p}: is not supported on ${body.model}; use output_config.effort to control depth`,
          DOCS.migrationSonnet55,
        );
    }
  }

  // Thinking configuration (DOCS.migrationSonnet55 table, DOCS.whatsNewSonnet55, DOCS.extendedThinking).
  const t = body.thinking;
  if (t !== undefined) {
    if (!rules.thinkingTypes.includes(t?.type)) {
      const hint =
        t?.type === "disabled" && rules.thinkingTypes.includes("between_tools")
          ? ' The lowest thinking setting on this model is {"type": "between_tools"}.'
          : "";
      return invalid(
        `thinking.type: "${t?.type}" is not supported on ${body.model}; accepted: ${rules.thinkingTypes.join(", ")}.${hint}`,
        DOCS.whatsNewSonnet55,
      );
    }
    if (
      t.type === "enabled" &&
      (!Number.isInteger(t.budget_tokens) || t.budget_tokens < 1024 || t.budget_tokens >= body.max_tokens)
    )
      return invalid("thinking.budget_tokens: must be ≥ 1024 and less than max_tokens", DOCS.extendedThinking);
  }
  const plan = thinkingPlan(body, rules);

  // Effort (DOCS.effort; DOCS.whatsNewSonnet55 for between_tools).
  const effort = body.output_config?.effort;
  if (effort !== undefined && effort !== null) {
    if (rules.efforts.length === 0)
      return invalid(`output_config.effort: effort is not supported on ${body.model}`, DOCS.effort);
    if (!rules.efforts.includes(effort))
      return invalid(`output_config.effort: "${effort}" is not one of ${rules.efforts.join(", ")}`, DOCS.effort);
    if (plan.mode === "between_tools" && rules.betweenToolsEfforts && !rules.betweenToolsEfforts.includes(effort))
      return invalid(
        `thinking.type "between_tools" cannot be combined with effort "${effort}"; use adaptive thinking for xhigh or max`,
        DOCS.whatsNewSonnet55,
      );
  }

  // Forced tool use (DOCS.whatsNewSonnet55; with thinking on any model: DOCS.extendedThinking).
  const choice = body.tool_choice?.type;
  if (choice === "any" || choice === "tool") {
    if (rules.rejectsForcedToolChoice)
      return invalid(
        `tool_choice: forced tool use ("${choice}") is not supported on ${body.model}`,
        DOCS.whatsNewSonnet55,
      );
    if (plan.mode !== "off")
      return invalid("Thinking may not be enabled when tool_choice forces tool use.", DOCS.extendedThinking);
  }

  // Assistant prefill (DOCS.migrationSonnet55).
  if (rules.rejectsPrefill && messages.at(-1)?.role === "assistant")
    return invalid(
      `messages: ${body.model} does not support assistant message prefill; the conversation must end with a user message`,
      DOCS.migrationSonnet55,
    );

  // Cache breakpoints (DOCS.promptCaching: at most 4 blocks with cache_control).
  const breakpoints = countCacheControl(body);
  if (breakpoints > 4)
    return invalid(
      `A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints}.`,
      DOCS.promptCaching,
    );

  // DOCS.promptCaching (mixing TTLs): a 1-hour breakpoint must come before any 5-minute one.
  let seenShort = false;
  for (const ttl of cacheTtls(body)) {
    if (ttl === "1h" && seenShort)
      return invalid('a cache_control with ttl "1h" must not come after one with ttl "5m"', DOCS.promptCaching);
    if (ttl !== "1h") seenShort = true;
  }

  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m?.role !== "user" && m?.role !== "assistant")
      return invalid(`messages.${i}.role: Input should be 'user' or 'assistant'`, DOCS.messages);
    const blocks = contentBlocks(m.content);
    if (typeof m.content === "string" ? !m.content.trim() && i < messages.length - 1 : blocks.length === 0)
      return invalid(
        `messages.${i}: all messages must have non-empty content except for the optional final assistant message`,
        DOCS.messages,
      );
    for (let j = 0; j < blocks.length; j++) {
      const b = blocks[j];
      // DOCS.messages: text content blocks must contain non-whitespace text.
      if (b?.type === "text" && (typeof b.text !== "string" || !b.text.trim()))
        return invalid(
          `messages.${i}.content.${j}: text content blocks must contain non-whitespace text`,
          DOCS.messages,
        );
      if ((b?.type === "thinking" || b?.type === "redacted_thinking") && m.role !== "assistant")
        return invalid(
          `messages.${i}.content.${j}: thinking blocks may only appear in assistant messages`,
          DOCS.extendedThinking,
        );
      if (b?.type === "thinking" || b?.type === "redacted_thinking") {
        const e = checkThinkingBlock(body, rules, i, j, b);
        if (e) return e;
      }
    }
  }

  // DOCS.toolUse: each tool_use needs its tool_result at the start of the very next user message,
  // and each tool_result must answer a tool_use of the message before it.
  for (let i = 0; i < messages.length; i++) {
    const blocks = contentBlocks(messages[i].content);
    if (messages[i].role === "assistant") {
      const ids = blocks.filter((b: Json) => b.type === "tool_use").map((b: Json) => b.id);
      if (ids.length === 0) continue;
      const next = messages[i + 1];
      if (!next) continue; // the tool loop is waiting for results; a prefill check above covers models that reject it
      const nextBlocks = contentBlocks(next.content);
      const results = nextBlocks.filter((b: Json) => b.type === "tool_result").map((b: Json) => b.tool_use_id);
      const missing = ids.filter((id: string) => !results.includes(id));
      if (next.role !== "user" || missing.length)
        return invalid(
          `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ") || ids.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
          DOCS.toolUse,
        );
      const firstOther = nextBlocks.findIndex((b: Json) => b.type !== "tool_result");
      if (firstOther !== -1 && nextBlocks.slice(firstOther).some((b: Json) => b.type === "tool_result"))
        return invalid(
          `messages.${i + 1}: tool_result blocks must come first in the user message, before any other content`,
          DOCS.toolUse,
        );
    } else {
      const prev = messages[i - 1];
      const prevIds =
        prev?.role === "assistant"
          ? contentBlocks(prev.content)
              .filter((b: Json) => b.type === "tool_use")
              .map((b: Json) => b.id)
          : [];
      for (const r of blocks.filter((b: Json) => b.type === "tool_result")) {
        if (!prevIds.includes(r.tool_use_id))
          return invalid(
            `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${r.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
            DOCS.toolUse,
          );
      }
    }
  }

  // DOCS.extendedThinking ("preserving thinking blocks"), DOCS.whatsNewSonnet55: during a tool loop the
  // assistant turn must be sent back with its thinking blocks, unchanged and in order.
  if (plan.mode !== "off") {
    const start = currentLoopStart(messages);
    for (let i = start; i < messages.length; i++) {
      if (messages[i].role !== "assistant") continue;
      const blocks = contentBlocks(messages[i].content);
      for (const use of blocks.filter((b: Json) => b.type === "tool_use")) {
        const expected = issued.get(use.id);
        if (!expected?.length) continue;
        const sent = blocks.filter((b: Json) => b.type === "thinking" || b.type === "redacted_thinking").map(canonical);
        const want = expected.map(canonical);
        if (JSON.stringify(sent) !== JSON.stringify(want)) {
          const firstType = blocks[0]?.type ?? "nothing";
          return invalid(
            `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${firstType}\`. When \`thinking\` is enabled, the assistant turn of a tool loop must be sent back with its thinking blocks exactly as they were returned`,
            DOCS.extendedThinking,
          );
        }
      }
    }
  }
  return undefined;
}

function checkThinkingBlock(
  body: Json,
  rules: FakeModelRules,
  i: number,
  j: number,
  b: Json,
): ContractError | undefined {
  const sig = readSignature(b.type === "thinking" ? b.signature : b.data);
  // DOCS.extendedThinking: the signature verifies the block was generated by Claude; a modified block is a 400.
  if (!sig)
    return invalid(`messages.${i}.content.${j}: Invalid \`signature\` in \`${b.type}\` block`, DOCS.extendedThinking);
  if (b.type === "thinking" && sig.t !== sha(String(b.thinking)))
    return invalid(
      `messages.${i}.content.${j}: thinking block content was modified; thinking blocks must be passed back unchanged`,
      DOCS.extendedThinking,
    );
  // DOCS.whatsNewSonnet55: thinking blocks are tied to the model that produced them.
  if (rules.thinkingTiedToModel && sig.m !== body.model)
    return invalid(
      `messages.${i}.content.${j}: this thinking block was produced by ${sig.m} and cannot be sent to ${body.model}`,
      DOCS.whatsNewSonnet55,
    );
  // DOCS.preservedThinking: the prefix before a thinking block must not change (enforced by default for new accounts).
  if (sig.p !== prefixHash(body, i, j))
    return invalid(
      `messages.${i}.content.${j}: the system prompt, tools or messages before this thinking block changed since it was produced`,
      DOCS.preservedThinking,
    );
  return undefined;
}

/** Index of the first message of the current tool loop: after the last user message that is not only tool results. */
export function currentLoopStart(messages: Json[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== "user") continue;
    const blocks = contentBlocks(m.content);
    if (blocks.some((b: Json) => b.type !== "tool_result")) return i + 1;
  }
  return 0;
}

/** TTLs of the cache breakpoints in prompt order (tools, system, messages). */
function cacheTtls(body: Json): string[] {
  const out: string[] = [];
  const add = (b: Json) => b?.cache_control && out.push(b.cache_control.ttl ?? "5m");
  for (const t of body.tools ?? []) add(t);
  for (const b of systemBlocks(body.system)) add(b);
  for (const m of body.messages ?? []) for (const b of contentBlocks(m.content)) add(b);
  if (body.cache_control) out.push(body.cache_control.ttl ?? "5m");
  return out;
}

export function countCacheControl(body: Json): number {
  let n = 0;
  for (const b of systemBlocks(body.system)) if (b?.cache_control) n++;
  for (const t of body.tools ?? []) if (t?.cache_control) n++;
  for (const m of body.messages ?? []) for (const b of contentBlocks(m.content)) if (b?.cache_control) n++;
  if (body.cache_control) n++;
  return n;
}

/** Rough token count the fake reports (characters / 4, like the gateway's estimate). */
export const estimateTokens = (value: unknown): number => Math.ceil(JSON.stringify(value ?? "").length / 4);

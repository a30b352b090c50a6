import { promptToolListing } from "@openassistant/core/codemode";
import type {
  ContentBlockParam,
  Message,
  MessageParam,
  ToolResultBlockParam,
  ToolUseBlock,
} from "@anthropic-ai/sdk/resources/messages/messages";
import type { ToolTree } from "@openassistant/sdk";
import { newRunId, type CodeModeRunner } from "@openassistant/core/codemode";
import { formatRunResultForModel } from "@openassistant/core/codemode";
import type { DeclarationsForCode, Typechecker } from "@openassistant/core/codemode";
import type { ActivitySummary, Receipt, ReceiptReader } from "@openassistant/core/receipts";
import { newId } from "@openassistant/core/db";
import type { RotationEvent } from "../auth/types.ts";
import type { GatewayEvent, TurnStopReason } from "../events/types.ts";
import { groundAnswer, summaryForModel } from "../grounding/ground.ts";
import { estimateTokens } from "../sessions/trim.ts";
import { modelCapabilities } from "../model/capabilities.ts";
import { cutText } from "@openassistant/core/text";
import type { NewMessage } from "../sessions/types.ts";
import { fitHistory, type FittedHistory, type HistoryMessage } from "./compact.ts";
import { EXECUTE_TOOL, readExecuteInput } from "./execute-tool.ts";
import { textOf, thinkingTextOf, toParams } from "./messages.ts";
import { buildRequest, type ModelRequest } from "./request.ts";
import type { TurnSettings } from "./settings.ts";
import { buildSystemPrompt } from "./system-prompt.ts";
import { askRoundText, roundTextUpdate, withRoundText } from "./round-text.ts";
import { startTurnClock, type TurnClock } from "./turn-clock.ts";

export type { ModelRequest } from "./request.ts";

/** The model transport (apps/gateway/src/model): streams one request, resolves with the final message. */
export interface ModelStreamer {
  streamMessage(
    params: ModelRequest,
    options: {
      onText?: (text: string) => void;
      signal?: AbortSignal;
      onRotate?: (event: RotationEvent) => void;
      /** Called before the client waits out a `retry-after` and retries. */
      onRetry?: (info: { seconds: number; reason: string }) => void;
      /** The text streamed so far is withdrawn: the call failed mid-stream and is made again. */
      onDiscard?: (info: { reason: string }) => void;
      /** #35: the model failed with an outage or a rate limit and the next configured model takes the call (model/chain.ts). */
      onFallback?: (info: { from: string; to: string; reason: string; message: string }) => void;
      /** #35: the configured model (`provider:name`) whose answer this is (the chain says; a lone Claude client does not). */
      onAnswer?: (label: string) => void;
    },
  ): Promise<Message>;
}

export interface TurnDeps {
  readonly model: ModelStreamer;
  readonly runner: Pick<CodeModeRunner, "runPromise" | "prepare">;
  readonly receipts: Pick<ReceiptReader, "byRuns">;
  readonly typechecker: Pick<Typechecker, "check">;
  /**
   * The current tools: the tree runs use and its declarations (tools only; the prelude is added by
   * the checker and the prompt). Read once per turn, so prompt, typecheck and runs agree even if a
   * reload lands mid-turn.
   */
  readonly tools: () => {
    readonly tree: ToolTree;
    readonly declarations: string;
    /** A tree too large to declare whole: the declarations a snippet is checked against (see ToolSnapshot). */
    readonly declarationsFor?: (code: string) => DeclarationsForCode;
  };
  readonly settings: TurnSettings;
  /**
   * #32: the `prompt.system` hooks' text, asked before each model round (round-text.ts). Absent when
   * there are no such hooks: nothing is asked and the request is as without.
   */
  readonly roundSystem?: () => Promise<string | undefined>;
}

export interface TurnSession {
  readonly id: string;
  /** Prior conversation, oldest first, as stored (with each message's run ids, for compaction). */
  readonly history: readonly HistoryMessage[];
  /** Runs of turns left out of `history` (refused turns), told to the model from their receipts. */
  readonly leftOutRuns?: readonly string[];
  /** Who asked (user id on the surface); recorded on approvals. */
  readonly requestedBy?: string;
  /** Runs resumed after a restart whose result this turn answers from (#30): the turn's grounding counts their receipts. */
  readonly resumedRuns?: readonly string[];
}

export interface TurnOptions {
  readonly turnId?: string;
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: GatewayEvent) => void;
}

export interface TurnOutcome {
  readonly turnId: string;
  /** The model's final text (or a clear message when the turn could not finish). */
  readonly text: string;
  readonly summary: ActivitySummary;
  /** One line per relevant call (✅ ⛔ ❌ ⏳ + receipt refs). */
  readonly summaryText: string;
  readonly unverified: boolean;
  readonly runIds: readonly string[];
  readonly events: readonly GatewayEvent[];
  readonly stopReason: TurnStopReason;
  /** The messages this turn adds to the session (user request first), always a consistent exchange. */
  readonly messages: readonly NewMessage[];
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number; readonly rounds: number };
  /** The model the last response came from; absent when no response arrived. */
  readonly answeredBy?: string;
  /** Messages dropped from the prompt by history trimming. */
  readonly omittedHistory: number;
  /** Set when the turn compacted the conversation to fit the model's context window. */
  readonly compacted?: { readonly omitted: number; readonly times: number };
}

interface ModelErrorLike {
  readonly kind?: string;
  readonly message: string;
}

export const newTurnId = () => newId("turn");

/** Sent (and stored) instead of an empty or whitespace-only user message. */
const EMPTY_USER_MESSAGE = "(The user sent an empty message.)";

const CUT_OFF_TEXT =
  "Not run: this tool call was cut off at the response token limit (max_tokens), so its code is incomplete. Send shorter code, or split the work over several execute calls.";
const CONTEXT_CUT_OFF_TEXT =
  "Not run: this tool call was cut off because the model's context window is full (model_context_window_exceeded), so its code is incomplete.";

const STOP_NOTES: Record<Exclude<TurnStopReason, "answered" | "model_error">, string> = {
  max_rounds: "I stopped: this turn reached its limit of model rounds.",
  max_repairs: "I stopped: my code kept failing the typecheck and no repair rounds are left for this turn.",
  token_budget: "I stopped: this turn used up its token budget.",
  timeout: "I stopped: this turn ran out of time.",
  aborted: "I stopped: the turn was cancelled.",
  refused:
    "The model declined to answer this request (stop reason: refusal), so there is no answer. This request and the declined reply are left out of the conversation from now on (the model would keep declining otherwise); rephrase it to try again.",
  context_full:
    "I stopped: the conversation filled the model's context window. Start a new conversation (or ask again more briefly); the receipts of what ran are kept.",
};

/** Declarations up to this many tokens go in the prompt whole (config `model.toolPromptTokens`). */
const DEFAULT_TOOL_PROMPT_TOKENS = 15_000;

/** Compactions one turn may make before it gives up with `context_full`. */
const MAX_COMPACTIONS = 3;
/** Characters of each tool result of the turn kept when its tool loop is folded into the request. */
const FOLDED_RESULT_CHARS = 2_000;

/** Continuation prompt after a `pause_turn` (valid on every model, including those that reject prefill). */
const CONTINUE_TEXT = "(Continue.)";

/** Everything one turn knows; each step reads and advances it. */
interface TurnState {
  readonly turnId: string;
  readonly session: TurnSession;
  readonly deps: TurnDeps;
  readonly s: TurnSettings;
  readonly signal: AbortSignal;
  readonly clock: TurnClock;
  readonly emit: (e: GatewayEvent) => void;
  readonly stopReasonFor: () => TurnStopReason;
  /**
   * The tools the next execute checks against and runs with: refreshed before each execute, so a
   * tool written or reloaded mid-turn is usable at once. The prompt keeps the declarations it
   * started with (its prefix must not change during a tool loop).
   */
  tree: ToolTree;
  declarations: string;
  readonly system: ReturnType<typeof buildSystemPrompt>;
  readonly userContent: ContentBlockParam[];
  /** Stored history, with run ids (compact.ts makes it valid and fits it). */
  readonly history: readonly HistoryMessage[];
  /** The history as sent: fitted, the user's request (with any folded tool loop) last. */
  trimmed: FittedHistory;
  historyTokens: number;
  /** The messages this turn adds (user request first). */
  readonly added: NewMessage[];
  /** Index in `added` where the messages sent after the user's request start (past a folded loop). */
  tailFrom: number;
  /** This turn's earlier tool loop as text in the request (after a compaction folded it). */
  folded?: string;
  compactions: number;
  readonly runIds: string[];
  readonly usage: { inputTokens: number; outputTokens: number; rounds: number };
  typecheckFailures: number;
  /** The last request as the API counted it (input incl. cache) and as we estimate it. */
  lastPrompt?: { readonly tokens: number; readonly estimate: number };
  /** The model named by the last response (what answered, as the API reports it). */
  answeredBy?: string;
  /** #32: the `prompt.system` text the system prompt carries, and the one the model was last told. */
  readonly systemRoundText?: string;
  roundText?: string;
  /** #35: `provider:name` of the model that gave the last response: the receipts of the runs it wrote name it. */
  writtenBy?: string;
  /** #35: the configured models that gave way to the next one this turn (model/chain.ts). */
  readonly fallbacks: Array<{ readonly from: string; readonly to: string; readonly reason: string }>;
}

/** What the turn does next. */
export type TurnStep =
  | { readonly kind: "request" }
  | { readonly kind: "tools"; readonly message: Message; readonly final: boolean }
  | { readonly kind: "finish"; readonly stopReason: TurnStopReason; readonly text?: string };

/**
 * One user message to a final answer, as a small state machine:
 * request a round → (handle tool uses → request a round)* → finish (grounding).
 * Never throws for model, tool or limit problems: they end the turn with a clear text and events.
 */
export async function runTurn(
  session: TurnSession,
  userMessage: string,
  deps: TurnDeps,
  options: TurnOptions = {},
): Promise<TurnOutcome> {
  const turnId = options.turnId ?? newTurnId();
  const s = deps.settings;
  const events: GatewayEvent[] = [];
  const emit = (e: GatewayEvent) => {
    events.push(e);
    options.onEvent?.(e);
  };
  // An own timer (stopped at the end) instead of AbortSignal.timeout, so a finished turn leaves nothing
  // pending, and so it can stand still while an approval waits for an operator.
  const timeoutController = new AbortController();
  const timeout = timeoutController.signal;
  const clock = startTurnClock(s.turnTimeoutSeconds * 1000, () =>
    timeoutController.abort(`the turn exceeded ${s.turnTimeoutSeconds}s`),
  );
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    const state = await startTurn(session, userMessage, deps, {
      turnId,
      signal,
      clock,
      emit,
      stopReasonFor: () => (options.signal?.aborted ? "aborted" : timeout.aborted ? "timeout" : "aborted"),
    });
    let step: TurnStep = { kind: "request" };
    while (step.kind !== "finish")
      step =
        step.kind === "request" ? await requestRound(state) : await handleToolUses(state, step.message, step.final);
    return finishTurn(state, step, events);
  } finally {
    clock.stop();
  }
}

export async function startTurn(
  session: TurnSession,
  userMessage: string,
  deps: TurnDeps,
  ctx: Pick<TurnState, "turnId" | "signal" | "clock" | "emit" | "stopReasonFor">,
): Promise<TurnState> {
  const s = deps.settings;
  const { tree, declarations } = deps.tools();
  // The API rejects an empty or whitespace-only text block, and a stored one would break every later turn.
  const userContent: ContentBlockParam[] = [
    { type: "text", text: userMessage.trim() ? userMessage : EMPTY_USER_MESSAGE },
  ];
  const history = session.history;
  const systemRoundText = await askRoundText(deps);
  return {
    ...ctx,
    session,
    deps,
    s,
    tree,
    declarations,
    // Too many declarations for the prompt: it lists namespaces, the model uses tools.$search.
    system: withRoundText(
      buildSystemPrompt(
        promptToolListing(tree, declarations, s.toolPromptTokens ?? DEFAULT_TOOL_PROMPT_TOKENS).text,
        s.system,
      ),
      systemRoundText,
    ),
    ...(systemRoundText ? { systemRoundText, roundText: systemRoundText } : {}),
    userContent,
    history,
    historyTokens: s.historyTokens,
    // Whatever is stored (an interrupted write, an older version), the request must be valid.
    trimmed: await fitHistory(
      history,
      { role: "user", content: userContent },
      {
        maxTokens: s.historyTokens,
        maxMessages: s.historyMessages,
        receiptsOf: (ids) => deps.receipts.byRuns(ids),
        leftOutRuns: session.leftOutRuns,
      },
    ),
    added: [{ role: "user", content: userContent }],
    tailFrom: 1,
    compactions: 0,
    runIds: [...(session.resumedRuns ?? [])],
    usage: { inputTokens: 0, outputTokens: 0, rounds: 0 },
    typecheckFailures: 0,
    fallbacks: [],
  };
}

/** Messages of this turn after the user's request (assistant / tool results), as sent. */
const turnTail = (state: TurnState): MessageParam[] =>
  state.added.slice(state.tailFrom).map((m) => ({ role: m.role, content: m.content }) as MessageParam);

const requestInput = (state: TurnState, messages: MessageParam[], final = false) => ({
  settings: state.s,
  system: state.system,
  tools: [EXECUTE_TOOL],
  messages,
  final,
});

/** The context window the gateway plans for (`contextWindowTokens` overrides the capability table). */
const contextWindowOf = (s: TurnSettings): number | undefined =>
  s.contextWindowTokens ?? modelCapabilities(s.model)?.contextWindow;

/**
 * #32: the `prompt.system` text asked again before a round after the first. Changed, it is told as a
 * text block after the round's tool results: the system prompt (and every earlier message) stays as
 * sent, since it is the prefix of the loop's thinking blocks and of the prompt cache.
 */
async function tellRoundText(state: TurnState): Promise<void> {
  const last = state.added.at(-1);
  if (!state.deps.roundSystem || state.added.length <= state.tailFrom || last?.role !== "user") return;
  const text = await askRoundText(state.deps);
  if (text === state.roundText) return;
  state.roundText = text;
  state.added[state.added.length - 1] = { ...last, content: [...last.content, roundTextUpdate(text)] };
}

/** Asks the model for one round and decides what its answer means. */
export async function requestRound(state: TurnState): Promise<TurnStep> {
  const { s, usage, turnId, emit } = state;
  if (state.signal.aborted) return { kind: "finish", stopReason: state.stopReasonFor() };
  if (usage.rounds >= s.maxRounds) return { kind: "finish", stopReason: "max_rounds" };
  // The last allowed round (or after too many failed repairs) must answer in text.
  const final = usage.rounds === s.maxRounds - 1 || state.typecheckFailures > s.maxRepairRounds;
  await tellRoundText(state);
  const request = buildRequest(
    requestInput(state, [...state.trimmed.messages, ...turnTail(state)], final && usage.rounds > 0),
  );
  // Real token counts when there are some: the last response's usage plus what this turn added since
  // (tool results included); else the estimate. A request that cannot fit is not sent: the history
  // is compacted first (compact), or the turn ends with a clear message when it cannot be.
  const estimate = estimateTokens([request.system, request.tools, request.messages]);
  const window = contextWindowOf(s);
  if (window) {
    const projected = state.lastPrompt
      ? state.lastPrompt.tokens + Math.max(0, estimate - state.lastPrompt.estimate)
      : estimate;
    if (projected + request.max_tokens > window)
      return (await compact(state, "would_not_fit"))
        ? { kind: "request" }
        : { kind: "finish", stopReason: "context_full" };
  }
  usage.rounds++;
  emit({ type: "model.request", turnId, round: usage.rounds });
  let message: Message;
  let answering: string | undefined;
  try {
    message = await state.deps.model.streamMessage(request, {
      onAnswer: (label) => {
        answering = label;
      },
      signal: state.signal,
      onText: (text) => emit({ type: "model.text", turnId, text }),
      onRotate: (r) =>
        emit({
          type: "profile.rotated",
          turnId,
          from: r.from,
          to: r.to,
          reason: r.reason,
          ...(r.message ? { message: r.message } : {}),
        }),
      onRetry: (r) => emit({ type: "model.retrying", turnId, seconds: r.seconds, reason: r.reason }),
      // The partial text goes; the retried call streams the whole answer again (no duplicate).
      onDiscard: (r) => emit({ type: "model.text.discarded", turnId, reason: r.reason }),
      onFallback: (f) => {
        // Told once per turn and pair: later rounds skip the failed model while it cools down.
        if (state.fallbacks.some((k) => k.from === f.from && k.to === f.to)) return;
        state.fallbacks.push({ from: f.from, to: f.to, reason: f.reason });
        emit({ type: "model.fallback", turnId, ...f });
      },
    });
  } catch (e) {
    return modelFailed(state, asModelError(e));
  }
  usage.inputTokens +=
    (message.usage?.input_tokens ?? 0) +
    (message.usage?.cache_read_input_tokens ?? 0) +
    (message.usage?.cache_creation_input_tokens ?? 0);
  usage.outputTokens += message.usage?.output_tokens ?? 0;
  if (message.usage) {
    const tokens =
      (message.usage.input_tokens ?? 0) +
      (message.usage.cache_read_input_tokens ?? 0) +
      (message.usage.cache_creation_input_tokens ?? 0);
    state.lastPrompt = { tokens, estimate };
  }
  if (typeof message.model === "string") state.answeredBy = message.model;
  // Without a chain only the Claude client serves (services/models.ts).
  state.writtenBy = answering ?? `anthropic:${request.model}`;
  const thinking = thinkingTextOf(message.content);
  if (thinking) emit({ type: "model.thinking", turnId, text: thinking });
  return readResponse(state, message, final);
}

async function modelFailed(state: TurnState, err: ModelErrorLike): Promise<TurnStep> {
  if (state.signal.aborted || err.kind === "aborted") return { kind: "finish", stopReason: state.stopReasonFor() };
  if (err.kind === "context_too_long") {
    // The rejected request used no round of the turn.
    state.usage.rounds--;
    return (await compact(state, "prompt_too_long"))
      ? { kind: "request" }
      : { kind: "finish", stopReason: "context_full" };
  }
  state.emit({ type: "error", turnId: state.turnId, code: `model.${err.kind ?? "api"}`, message: err.message });
  return { kind: "finish", stopReason: "model_error", text: err.message };
}

type CompactReason = "would_not_fit" | "prompt_too_long" | "window_exceeded";

/** Room left for the rest after compaction notes (a fold, the note of dropped messages). */
const NOTE_ALLOWANCE_TOKENS = 2_500;

/**
 * Makes room in the context window. This turn's tool loop so far (if any) is folded into the request
 * as text: its thinking blocks are bound to the exact prefix before them, which dropping history
 * changes, so the loop cannot be sent on as it was (and a loop is often what filled the window).
 * Then the oldest history is dropped to a smaller budget (compact.ts), its receipts-backed activity
 * kept in a note. False once the turn has compacted as often as it may.
 */
async function compact(state: TurnState, reason: CompactReason): Promise<boolean> {
  if (state.compactions >= MAX_COMPACTIONS) return false;
  state.compactions++;
  if (state.added.length > state.tailFrom) {
    state.folded = await foldedLoop(state);
    state.tailFrom = state.added.length;
  }
  const userMessage: MessageParam = {
    role: "user",
    content: state.folded ? [...state.userContent, { type: "text", text: state.folded }] : state.userContent,
  };
  const window = contextWindowOf(state.s);
  // Half of what was sent (or of the budget, when less was sent) when the API said it did not fit.
  const sent = estimateTokens(state.trimmed.messages.map((m) => m.content));
  const halved = Math.floor(Math.min(state.historyTokens, sent) / 2);
  // The request's fixed part (system, tools, the answer's max_tokens) comes off the window first.
  const room = window
    ? window -
      buildRequest(requestInput(state, [])).max_tokens -
      estimateTokens([state.system, [EXECUTE_TOOL]]) -
      NOTE_ALLOWANCE_TOKENS
    : halved;
  // Our estimate said it fits but the API said no: shrink by half at least.
  state.historyTokens = Math.max(
    0,
    reason === "would_not_fit" ? Math.min(state.historyTokens, room) : Math.min(halved, room),
  );
  state.trimmed = await fitHistory(state.history, userMessage, {
    maxTokens: state.historyTokens,
    maxMessages: state.s.historyMessages,
    receiptsOf: (ids) => state.deps.receipts.byRuns(ids),
    leftOutRuns: state.session.leftOutRuns,
  });
  state.lastPrompt = undefined;
  // The updates told in the folded loop are gone: the next round tells the status again if it differs.
  state.roundText = state.systemRoundText;
  state.emit({ type: "history.compacted", turnId: state.turnId, omitted: state.trimmed.omitted, reason });
  return true;
}

/** This turn's steps so far as text: what ran (from receipts) and each tool result, cut short. */
async function foldedLoop(state: TurnState): Promise<string> {
  const results = state.added
    .slice(state.tailFrom)
    .flatMap((m) => m.content)
    .flatMap((b) =>
      b.type === "tool_result" ? [typeof b.content === "string" ? b.content : JSON.stringify(b.content)] : [],
    )
    .map((text) => `- ${cutText(text, FOLDED_RESULT_CHARS)}`);
  return [
    state.folded ??
      "[The conversation was compacted during this turn to fit the context window: this turn's earlier steps are given here as text instead of as they were sent. The tool calls they made already ran; do not repeat them.]",
    ...(state.runIds.length ? [summaryForModel(await turnReceipts(state))] : []),
    ...(results.length ? ["Results of those tool calls (cut short):", ...results] : []),
  ].join("\n");
}

/** Every documented stop reason, handled on purpose. */
export async function readResponse(state: TurnState, message: Message, final: boolean): Promise<TurnStep> {
  const content = toParams(message.content);
  const toolUses = message.content.filter((b): b is ToolUseBlock => b.type === "tool_use");
  switch (message.stop_reason) {
    case "refusal":
      // No partial answer is stored as if it were complete, nor shown; the gateway leaves the whole
      // turn out of later requests (SessionStore.modelHistory), as the docs require.
      if (textOf(content))
        state.emit({ type: "model.text.discarded", turnId: state.turnId, reason: "the model declined" });
      state.added.push({
        role: "assistant",
        content: [{ type: "text", text: "(The model declined to answer; its partial reply was discarded.)" }],
      });
      return { kind: "finish", stopReason: "refused", text: refusalText(message) };
    case "pause_turn":
      // A long server-side turn paused: send it back and let the model continue.
      if (toolUses.length === 0) {
        if (content.length) state.added.push({ role: "assistant", content });
        state.added.push({ role: "user", content: [{ type: "text", text: CONTINUE_TEXT }] });
        return { kind: "request" };
      }
      return { kind: "tools", message, final };
    case "model_context_window_exceeded":
      // Cut off by the full window: nothing of this message is kept or run (its last tool call is
      // incomplete); the conversation is compacted and the round asked again, so the model still
      // answers. Only when nothing more can be compacted does the cut-off answer stand.
      if (await compact(state, "window_exceeded")) {
        state.emit({ type: "model.text.discarded", turnId: state.turnId, reason: "the context window was full" });
        return { kind: "request" };
      }
      if (toolUses.length === 0) return answer(state, content, "context_full");
      return { kind: "tools", message, final };
    default:
      // end_turn, stop_sequence, max_tokens, tool_use.
      if (toolUses.length === 0)
        return answer(state, content, message.stop_reason === "max_tokens" ? "max_tokens" : "answered");
      return { kind: "tools", message, final };
  }
}

function answer(
  state: TurnState,
  content: ContentBlockParam[],
  why: "answered" | "max_tokens" | "context_full",
): TurnStep {
  let text = textOf(content) || "(The model returned no text.)";
  if (why === "max_tokens") text += "\n\n(The answer was cut off at the response token limit.)";
  if (why === "context_full")
    text += "\n\n(The answer was cut off: the conversation filled the model's context window.)";
  const stored = content.filter((b) => b.type !== "tool_use");
  state.added.push({
    role: "assistant",
    content: stored.some((b) => b.type === "text") ? stored : [...stored, { type: "text", text }],
  });
  return { kind: "finish", stopReason: why === "context_full" ? "context_full" : "answered", text };
}

/** Runs the response's tool calls (or declines them on a final round) and sends the results back. */
export async function handleToolUses(state: TurnState, message: Message, final: boolean): Promise<TurnStep> {
  const { s } = state;
  const toolUses = message.content.filter((b): b is ToolUseBlock => b.type === "tool_use");
  if (final) {
    // A final round may not call tools; drop any tool_use so stored history stays well-formed.
    const repairsExhausted = state.typecheckFailures > s.maxRepairRounds;
    const stopReason: TurnStopReason = repairsExhausted ? "max_repairs" : "max_rounds";
    const content = toParams(message.content).filter((b) => b.type !== "tool_use");
    const text = textOf(content) || STOP_NOTES[stopReason];
    state.added.push({
      role: "assistant",
      content: content.some((b) => b.type === "text") ? content : [...content, { type: "text", text }],
    });
    return { kind: "finish", stopReason, text };
  }
  // The assistant turn goes back exactly as it came, thinking blocks and signatures included.
  state.added.push({ role: "assistant", content: toParams(message.content) });
  // Cut off at max_tokens / a full context window: the last tool_use's input is incomplete JSON (the
  // SDK parses what arrived), so its code may be a truncated prefix that still compiles. Never run it.
  const cutOffBy =
    message.stop_reason === "max_tokens" || message.stop_reason === "model_context_window_exceeded"
      ? message.stop_reason
      : undefined;
  const cutOff = cutOffBy && message.content.at(-1)?.type === "tool_use" ? message.content.at(-1) : undefined;
  const results: ToolResultBlockParam[] = [];
  const roundRuns: string[] = [];
  for (const use of toolUses) {
    results.push(
      use === cutOff
        ? {
            type: "tool_result",
            tool_use_id: use.id,
            is_error: true,
            content: cutOffBy === "max_tokens" ? CUT_OFF_TEXT : CONTEXT_CUT_OFF_TEXT,
          }
        : await executeToolUse(state, use, roundRuns),
    );
  }
  state.runIds.push(...roundRuns);
  // Evidence for the model's final answer: the turn's activity so far, from receipts, appended to the last result.
  if (roundRuns.length) {
    const last = results[results.length - 1]!;
    const text = typeof last.content === "string" ? last.content : "";
    results[results.length - 1] = { ...last, content: `${text}\n\n${summaryForModel(await turnReceipts(state))}` };
  }
  state.added.push({ role: "user", content: results, runIds: roundRuns } as NewMessage);
  if (cutOffBy === "model_context_window_exceeded") return { kind: "finish", stopReason: "context_full" };
  if (state.usage.inputTokens + state.usage.outputTokens >= s.maxTurnTokens)
    return { kind: "finish", stopReason: "token_budget" };
  return { kind: "request" };
}

async function executeToolUse(state: TurnState, use: ToolUseBlock, roundRuns: string[]): Promise<ToolResultBlockParam> {
  const { s, deps, turnId, emit, signal } = state;
  const input = readExecuteInput(use);
  if (!input.ok) return { type: "tool_result", tool_use_id: use.id, is_error: true, content: input.error };
  if (signal.aborted)
    return { type: "tool_result", tool_use_id: use.id, is_error: true, content: "Not run: the turn was cancelled." };
  const current = deps.tools();
  state.tree = current.tree;
  state.declarations = current.declarations;
  const own = current.declarationsFor?.(input.code);
  const checking =
    own === undefined
      ? deps.typechecker.check(input.code, state.declarations)
      : own.ok
        ? deps.typechecker.check(input.code, own.text)
        : Promise.resolve(own);
  // The checker works in its own process meanwhile: the run's transpile is off the turn's path.
  deps.runner.prepare(input.code);
  const check = await checking;
  if (!check.ok) {
    state.typecheckFailures++;
    const left = s.maxRepairRounds - state.typecheckFailures + 1;
    emit({ type: "typecheck.failed", turnId, diagnostics: check.text, repairRound: state.typecheckFailures });
    const tail =
      left > 0
        ? `Fix the code and call execute again (${left} repair round${left === 1 ? "" : "s"} left this turn).`
        : "No repair rounds are left this turn: answer the user in text without running code.";
    return {
      type: "tool_result",
      tool_use_id: use.id,
      is_error: true,
      content: `The code was not run: it failed the typecheck.\n${check.text}\n${tail}`,
    };
  }
  const runId = newRunId();
  roundRuns.push(runId);
  emit({ type: "run.started", turnId, runId, code: input.code });
  const result = await deps.runner.runPromise(input.code, {
    runId,
    tools: state.tree,
    sessionId: state.session.id,
    requestedBy: state.session.requestedBy,
    ...(state.writtenBy ? { model: state.writtenBy } : {}),
    signal,
    onCall: (outcome) => emit({ type: "call.settled", turnId, runId, outcome }),
    onProgress: (progress) => emit({ type: "call.progress", turnId, runId, progress }),
    onApprovalWait: (waiting) => (waiting ? state.clock.hold() : state.clock.release()),
  });
  emit({
    type: "run.finished",
    turnId,
    runId,
    ok: result.ok,
    error: result.error ? `${result.error.name}: ${result.error.message}` : undefined,
  });
  return { type: "tool_result", tool_use_id: use.id, is_error: !result.ok, content: formatRunResultForModel(result) };
}

/**
 * The turn's receipts once they are committed. The reader waits for them without blocking the
 * event loop: on a busy host the fold worker can take a while, and a synchronous read would hold
 * up every other conversation and every button click meanwhile.
 */
function turnReceipts(state: TurnState): Promise<Receipt[]> {
  return state.deps.receipts.byRuns(state.runIds);
}

/** Ends the turn: a stored exchange that is always well-formed, the answer grounded in receipts. */
export async function finishTurn(
  state: TurnState,
  step: Extract<TurnStep, { kind: "finish" }>,
  events: readonly GatewayEvent[],
): Promise<TurnOutcome> {
  const { stopReason } = step;
  let text = step.text;
  if (stopReason === "model_error") {
    state.added.push({ role: "assistant", content: [{ type: "text", text: `(The model call failed: ${text})` }] });
  } else if (text === undefined) {
    text = STOP_NOTES[stopReason as keyof typeof STOP_NOTES] ?? "I stopped.";
    // Keep stored history well-formed: the turn ends on an assistant message.
    if (state.added.at(-1)?.role !== "assistant")
      state.added.push({ role: "assistant", content: [{ type: "text", text }] });
  }
  const grounding = groundAnswer(text ?? "", await turnReceipts(state));
  // Told after grounding: the note is the gateway's, not a claim of the model's.
  const compacted = state.compactions ? { omitted: state.trimmed.omitted, times: state.compactions } : undefined;
  return {
    turnId: state.turnId,
    text: compacted ? `${text ?? ""}\n\n${compactionNote(compacted.omitted)}` : (text ?? ""),
    ...(compacted ? { compacted } : {}),
    summary: grounding.summary,
    summaryText: withFallbackNote(grounding.summaryText, state),
    unverified: grounding.unverified,
    runIds: state.runIds,
    events,
    stopReason,
    messages: state.added,
    usage: state.usage,
    omittedHistory: state.trimmed.omitted,
    ...(state.answeredBy ? { answeredBy: state.answeredBy } : {}),
  };
}

/** The refusal note, with the API's explanation when it gives one (stop_details, meant for users). */
function refusalText(message: Message): string {
  const explanation = message.stop_details?.explanation?.trim();
  return explanation ? `${STOP_NOTES.refused}\nReason given: ${cutText(explanation, 300)}` : STOP_NOTES.refused;
}

/** #35: the summary says which model answered when a configured model gave way to another. */
function withFallbackNote(summaryText: string, state: TurnState): string {
  if (!state.fallbacks.length) return summaryText;
  const why = state.fallbacks.map((f) => `${f.from} ${f.reason.replaceAll("_", " ")}`).join(", ");
  const note = `↪ answered by ${state.answeredBy ?? state.fallbacks.at(-1)!.to} (fallback: ${why})`;
  return summaryText ? `${summaryText}\n${note}` : note;
}

function compactionNote(omitted: number): string {
  const what = omitted
    ? `${omitted} older message${omitted === 1 ? " was" : "s were"} left out of what the model sees (what their tool calls did is kept, from the receipts)`
    : "this turn's earlier steps were condensed for the model";
  return `(The conversation outgrew the model's context window, so it was compacted: ${what}.)`;
}

function asModelError(e: unknown): ModelErrorLike {
  if (e instanceof Error) return { kind: (e as { kind?: string }).kind, message: e.message };
  return { message: String(e) };
}

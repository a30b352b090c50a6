import type {
  ContentBlock,
  ContentBlockParam,
  Message,
  MessageCreateParamsBase,
  MessageParam,
  TextBlockParam,
  ToolResultBlockParam,
  ToolUseBlock,
} from "@anthropic-ai/sdk/resources/messages/messages";
import type { ToolTree } from "@openassistant/sdk";
import { newRunId, type CodeModeRunner } from "@openassistant/core/codemode/runner.ts";
import { formatRunResultForModel } from "@openassistant/core/codemode/format-result.ts";
import type { Typechecker } from "@openassistant/core/codemode/typecheck.ts";
import type { ActivitySummary, Receipt, ReceiptStore } from "@openassistant/core/receipts/index.ts";
import type { RotationEvent } from "../auth/types.ts";
import type { GatewayEvent, TurnStopReason } from "../events/types.ts";
import { groundAnswer, summaryForModel } from "../grounding/ground.ts";
import { repairHistory, sanitizeBlock } from "../sessions/repair.ts";
import { trimHistory } from "../sessions/trim.ts";
import type { NewMessage } from "../sessions/types.ts";
import { EXECUTE_TOOL, readExecuteInput } from "./execute-tool.ts";
import type { TurnSettings } from "./settings.ts";
import { buildSystemPrompt } from "./system-prompt.ts";
import { startTurnClock } from "./turn-clock.ts";
import { newId } from "@openassistant/core/ids.ts";

/** Request parameters the agent sends (streaming is the client's business). */
export type ModelRequest = Omit<MessageCreateParamsBase, "stream">;

/** The model transport (apps/gateway/src/model): streams one request, resolves with the final message. */
export interface ModelStreamer {
  streamMessage(
    params: ModelRequest,
    options: { onText?: (text: string) => void; signal?: AbortSignal; onRotate?: (event: RotationEvent) => void },
  ): Promise<Message>;
}

export interface TurnDeps {
  readonly model: ModelStreamer;
  readonly runner: Pick<CodeModeRunner, "runPromise">;
  readonly receipts: Pick<ReceiptStore, "byRun">;
  readonly typechecker: Pick<Typechecker, "check">;
  /**
   * The current tools: the tree runs use and its declarations (tools only; the prelude is added by
   * the checker and the prompt). Read once per turn, so prompt, typecheck and runs agree even if a
   * reload lands mid-turn.
   */
  readonly tools: () => { readonly tree: ToolTree; readonly declarations: string };
  readonly settings: TurnSettings;
}

export interface TurnSession {
  readonly id: string;
  /** Prior conversation, oldest first, as stored. */
  readonly history: readonly MessageParam[];
  /** Who asked (user id on the surface); recorded on approvals. */
  readonly requestedBy?: string;
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
  /** Messages dropped from the prompt by history trimming. */
  readonly omittedHistory: number;
}

interface ModelErrorLike {
  readonly kind?: string;
  readonly message: string;
}

export const newTurnId = () => newId("turn");

/** Sent (and stored) instead of an empty or whitespace-only user message. */
export const EMPTY_USER_MESSAGE = "(The user sent an empty message.)";

const CUT_OFF_TEXT =
  "Not run: this tool call was cut off at the response token limit (max_tokens), so its code is incomplete. Send shorter code, or split the work over several execute calls.";

const STOP_NOTES: Record<Exclude<TurnStopReason, "answered" | "model_error">, string> = {
  max_rounds: "I stopped: this turn reached its limit of model rounds.",
  max_repairs: "I stopped: my code kept failing the typecheck and no repair rounds are left for this turn.",
  token_budget: "I stopped: this turn used up its token budget.",
  timeout: "I stopped: this turn ran out of time.",
  aborted: "I stopped: the turn was cancelled.",
};

/**
 * One user message to a final answer: model → (typecheck → run → result)* → text, then grounding.
 * Never throws for model, tool or limit problems: they end the turn with a clear text and events.
 */
export async function runTurn(session: TurnSession, userMessage: string, deps: TurnDeps, options: TurnOptions = {}): Promise<TurnOutcome> {
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
  const clock = startTurnClock(s.turnTimeoutSeconds * 1000, () => timeoutController.abort(`the turn exceeded ${s.turnTimeoutSeconds}s`));
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const stopReasonFor = (): TurnStopReason => (options.signal?.aborted ? "aborted" : timeout.aborted ? "timeout" : "aborted");
  try {
    return await loop();
  } finally {
    clock.stop();
  }

  async function loop(): Promise<TurnOutcome> {
    const { tree, declarations } = deps.tools();
    const system = buildSystemPrompt(declarations, s.system);
    // The API rejects an empty or whitespace-only text block, and a stored one would break every later turn.
    const userContent: ContentBlockParam[] = [{ type: "text", text: userMessage.trim() ? userMessage : EMPTY_USER_MESSAGE }];
    const added: NewMessage[] = [{ role: "user", content: userContent }];
    const runIds: string[] = [];
    let historyTokens = s.historyTokens;
    // Whatever is stored (an interrupted write, an older version), the request must be valid.
    const history = repairHistory(session.history);
    let trimmed = trimHistory([...history, { role: "user", content: userContent }], { maxTokens: historyTokens, maxMessages: s.historyMessages });
    const usage = { inputTokens: 0, outputTokens: 0, rounds: 0 };
    let typecheckFailures = 0;
    let finalText: string | undefined;
    let stopReason: TurnStopReason = "answered";
    let contextRetried = false;

    /** Messages of this turn after the user's request (assistant / tool results), for the next request. */
    const turnTail = () => added.slice(1).map((m) => ({ role: m.role, content: m.content }) as MessageParam);

    for (;;) {
      if (signal.aborted) {
        stopReason = stopReasonFor();
        break;
      }
      if (usage.rounds >= s.maxRounds) {
        stopReason = "max_rounds";
        break;
      }
      const repairsExhausted = typecheckFailures > s.maxRepairRounds;
      // The last allowed round (or after too many failed repairs) must answer in text.
      const finalRound = usage.rounds === s.maxRounds - 1 || repairsExhausted;
      const request: ModelRequest = {
        model: s.model,
        max_tokens: s.maxTokens,
        system,
        tools: [EXECUTE_TOOL],
        messages: withCacheBreakpoint([...trimmed.messages, ...turnTail()]),
        ...(finalRound && usage.rounds > 0 ? { tool_choice: { type: "none" as const } } : {}),
      };
      usage.rounds++;
      emit({ type: "model.request", turnId, round: usage.rounds });
      let message: Message;
      try {
        message = await deps.model.streamMessage(request, {
          signal,
          onText: (text) => emit({ type: "model.text", turnId, text }),
          onRotate: (r) => emit({ type: "profile.rotated", turnId, from: r.from, to: r.to, reason: r.reason, ...(r.message ? { message: r.message } : {}) }),
        });
      } catch (e) {
        const err = asModelError(e);
        if (signal.aborted || err.kind === "aborted") {
          stopReason = stopReasonFor();
          break;
        }
        if (err.kind === "context_too_long" && !contextRetried) {
          contextRetried = true;
          usage.rounds--;
          historyTokens = Math.floor(historyTokens / 4);
          trimmed = trimHistory([...history, { role: "user", content: userContent }], { maxTokens: historyTokens, maxMessages: s.historyMessages });
          continue;
        }
        emit({ type: "error", turnId, code: `model.${err.kind ?? "api"}`, message: err.message });
        stopReason = "model_error";
        finalText = err.message;
        break;
      }
      usage.inputTokens += (message.usage?.input_tokens ?? 0) + (message.usage?.cache_read_input_tokens ?? 0) + (message.usage?.cache_creation_input_tokens ?? 0);
      usage.outputTokens += message.usage?.output_tokens ?? 0;

      const toolUses = message.content.filter((b): b is ToolUseBlock => b.type === "tool_use");
      if (toolUses.length === 0 || finalRound) {
        // A final round may not call tools; drop any tool_use so stored history stays well-formed.
        const content = toParams(message.content.filter((b) => b.type !== "tool_use"));
        finalText = textOf(content);
        if (!finalText.trim()) finalText = toolUses.length ? STOP_NOTES[repairsExhausted ? "max_repairs" : "max_rounds"] : "(The model returned no text.)";
        added.push({ role: "assistant", content: content.length ? content : [{ type: "text", text: finalText }] });
        stopReason = toolUses.length === 0 ? "answered" : repairsExhausted ? "max_repairs" : "max_rounds";
        if (toolUses.length === 0 && message.stop_reason === "max_tokens") finalText += "\n\n(The answer was cut off at the response token limit.)";
        break;
      }

      added.push({ role: "assistant", content: toParams(message.content) });
      const results: ToolResultBlockParam[] = [];
      const roundRuns: string[] = [];
      // Cut off at max_tokens: the last tool_use's input is an incomplete JSON (the SDK parses what
      // arrived), so its code may be a truncated prefix that still compiles. Never run it.
      const cutOff = message.stop_reason === "max_tokens" && message.content.at(-1)?.type === "tool_use" ? message.content.at(-1) : undefined;
      for (const use of toolUses) {
        results.push(use === cutOff ? { type: "tool_result", tool_use_id: use.id, is_error: true, content: CUT_OFF_TEXT } : await executeToolUse(use, roundRuns));
      }
      runIds.push(...roundRuns);
      // Evidence for the model's final answer: the turn's activity so far, from receipts, appended to the last result.
      if (roundRuns.length) {
        const last = results[results.length - 1]!;
        const text = typeof last.content === "string" ? last.content : "";
        results[results.length - 1] = { ...last, content: `${text}\n\n${summaryForModel(turnReceipts())}` };
      }
      added.push({ role: "user", content: results, runIds: roundRuns } as NewMessage);

      if (usage.inputTokens + usage.outputTokens >= s.maxTurnTokens) {
        stopReason = "token_budget";
        break;
      }
    }

    async function executeToolUse(use: ToolUseBlock, roundRuns: string[]): Promise<ToolResultBlockParam> {
      const input = readExecuteInput(use);
      if (!input.ok) return { type: "tool_result", tool_use_id: use.id, is_error: true, content: input.error };
      if (signal.aborted) return { type: "tool_result", tool_use_id: use.id, is_error: true, content: "Not run: the turn was cancelled." };
      const check = await deps.typechecker.check(input.code, declarations);
      if (!check.ok) {
        typecheckFailures++;
        const left = s.maxRepairRounds - typecheckFailures + 1;
        emit({ type: "typecheck.failed", turnId, diagnostics: check.text, repairRound: typecheckFailures });
        const tail = left > 0 ? `Fix the code and call execute again (${left} repair round${left === 1 ? "" : "s"} left this turn).` : "No repair rounds are left this turn: answer the user in text without running code.";
        return { type: "tool_result", tool_use_id: use.id, is_error: true, content: `The code was not run: it failed the typecheck.\n${check.text}\n${tail}` };
      }
      const runId = newRunId();
      roundRuns.push(runId);
      emit({ type: "run.started", turnId, runId, code: input.code });
      const result = await deps.runner.runPromise(input.code, {
        runId,
        tools: tree,
        sessionId: session.id,
        requestedBy: session.requestedBy,
        signal,
        onCall: (outcome) => emit({ type: "call.settled", turnId, runId, outcome }),
        onApprovalWait: (waiting) => (waiting ? clock.hold() : clock.release()),
      });
      emit({ type: "run.finished", turnId, runId, ok: result.ok, error: result.error ? `${result.error.name}: ${result.error.message}` : undefined });
      return { type: "tool_result", tool_use_id: use.id, is_error: !result.ok, content: formatRunResultForModel(result) };
    }

    function turnReceipts(): Receipt[] {
      return runIds.flatMap((id) => deps.receipts.byRun(id));
    }

    if (finalText === undefined) {
      const note = STOP_NOTES[stopReason as keyof typeof STOP_NOTES] ?? "I stopped.";
      finalText = note;
      // Keep stored history well-formed: the turn ends on an assistant message.
      added.push({ role: "assistant", content: [{ type: "text", text: note }] });
    } else if (stopReason === "model_error") {
      added.push({ role: "assistant", content: [{ type: "text", text: `(The model call failed: ${finalText})` }] });
    }

    const grounding = groundAnswer(finalText, turnReceipts());
    const outcome: TurnOutcome = {
      turnId,
      text: finalText,
      summary: grounding.summary,
      summaryText: grounding.summaryText,
      unverified: grounding.unverified,
      runIds,
      events,
      stopReason,
      messages: added,
      usage,
      omittedHistory: trimmed.omitted,
    };
    return outcome;
  }
}

/**
 * Marks the newest block for prompt caching too (the system block is the first breakpoint), so
 * each round of a tool loop reads the conversation so far from the cache. Copies; stored history is untouched.
 */
function withCacheBreakpoint(messages: MessageParam[]): MessageParam[] {
  const last = messages.at(-1);
  if (!last || typeof last.content === "string" || last.content.length === 0) return messages;
  const blocks = [...last.content];
  const tail = blocks[blocks.length - 1]!;
  if (tail.type !== "text" && tail.type !== "tool_result") return messages;
  blocks[blocks.length - 1] = { ...tail, cache_control: { type: "ephemeral" } };
  return [...messages.slice(0, -1), { ...last, content: blocks } as MessageParam];
}

function asModelError(e: unknown): ModelErrorLike {
  if (e instanceof Error) return { kind: (e as { kind?: string }).kind, message: e.message };
  return { message: String(e) };
}

/**
 * Response blocks → request params (text and tool_use; other kinds are not produced without extra
 * features), as the API accepts them back: no empty text blocks, tool_use input an object.
 */
function toParams(blocks: readonly ContentBlock[]): ContentBlockParam[] {
  const out: ContentBlockParam[] = [];
  for (const b of blocks) {
    const param: ContentBlockParam | undefined =
      b.type === "text" ? { type: "text", text: b.text } : b.type === "tool_use" ? { type: "tool_use", id: b.id, name: b.name, input: b.input } : undefined;
    const safe = param && sanitizeBlock(param);
    if (safe) out.push(safe);
  }
  return out;
}

function textOf(blocks: readonly ContentBlockParam[]): string {
  return blocks
    .filter((b): b is TextBlockParam => b.type === "text")
    .map((b) => b.text)
    .join("\n")
    .trim();
}

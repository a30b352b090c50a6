import type { MessageParam } from "@anthropic-ai/sdk/resources/messages/messages";
import { formatSummaryForModel, summarizeRun, type Receipt } from "@openassistant/core/receipts";
import { cutText } from "@openassistant/core/text";
import { repairHistory } from "../sessions/repair.ts";
import { keptFrom, withNote } from "../sessions/trim.ts";
import { withoutThinking } from "./messages.ts";

/** A stored message as the turn receives it: the run ids let a compaction say what its runs did. */
export type HistoryMessage = MessageParam & { readonly runIds?: readonly string[] };

export interface FittedHistory {
  /** Valid request messages, the user's new message last. */
  readonly messages: MessageParam[];
  /** Stored messages left out. */
  readonly omitted: number;
}

export interface FitOptions {
  readonly maxTokens: number;
  readonly maxMessages: number;
  /** The receipts of some runs (the gateway's receipt store). */
  readonly receiptsOf: (runIds: readonly string[]) => Promise<readonly Receipt[]>;
  /**
   * Runs of turns left out of the history on purpose (refused turns): what they did is still told,
   * from the receipts, so the model does not act as if it never happened.
   */
  readonly leftOutRuns?: readonly string[];
}

/** The activity lines of dropped messages are bounded: the note must not refill the window. */
const MAX_ACTIVITY_CHARS = 6_000;
/** The newest runs whose receipts are read for a note: a long session must not read thousands per turn. */
const MAX_NOTED_RUNS = 200;

/**
 * Stored history plus the user's new message, made valid for a request and fitted to a budget
 * (compaction by dropping, not by a model-written summary: no second request that can itself
 * overflow or fail, and nothing the model could misremember about what ran):
 * - thinking of finished turns is left out (the docs require it only within its own tool loop);
 * - the oldest messages go until the rest fits, cut only before a plain user message, so every
 *   tool_use keeps its tool_result (sessions/trim.ts `keptFrom`); what is left is repaired;
 * - in their place, a note says so and lists what their tool runs did, from the receipts, so the
 *   model still knows what was done (and what was denied or failed) before the cut.
 */
export async function fitHistory(
  history: readonly HistoryMessage[],
  userMessage: MessageParam,
  options: FitOptions,
): Promise<FittedHistory> {
  const all = [...withoutThinking(history.map(asBlocks)), userMessage];
  const start = Math.min(keptFrom(all, options), all.length - 1);
  const kept = repairHistory(all.slice(start).map((m) => ({ role: m.role, content: m.content }) as MessageParam));
  const runIds = all.slice(0, start).flatMap((m) => (m as HistoryMessage).runIds ?? []);
  const notes = [
    ...(start > 0 ? [await compactionNote(start, runIds, options.receiptsOf)] : []),
    ...(await leftOutNote(options.leftOutRuns ?? [], options.receiptsOf)),
  ];
  return { messages: notes.length ? withNote(kept, notes.join("\n")) : kept, omitted: start };
}

function activityLines(receipts: readonly Receipt[]): string {
  return cutText(formatSummaryForModel(summarizeRun(receipts)), MAX_ACTIVITY_CHARS);
}

async function newestReceipts(
  runIds: readonly string[],
  receiptsOf: FitOptions["receiptsOf"],
): Promise<readonly Receipt[]> {
  return runIds.length ? receiptsOf(runIds.slice(-MAX_NOTED_RUNS)) : [];
}

async function leftOutNote(runIds: readonly string[], receiptsOf: FitOptions["receiptsOf"]): Promise<string[]> {
  const receipts = await newestReceipts(runIds, receiptsOf);
  if (!receipts.length) return [];
  return [
    `[Requests refused earlier are left out of this conversation. Tool calls made while handling them, from the gateway's receipts (only ✅ lines were done):\n${activityLines(receipts)}]`,
  ];
}

/**
 * Content as a list of block objects, whatever a damaged row holds (null, an object, stray values),
 * so the steps before the repair can read it; the repair then makes each block valid.
 */
function asBlocks(m: HistoryMessage): HistoryMessage {
  if (typeof m.content === "string") return m;
  const blocks = Array.isArray(m.content) ? m.content : [];
  const objects = blocks.filter((b) => typeof b === "object" && b !== null && !Array.isArray(b));
  return objects.length === blocks.length && blocks === m.content ? m : ({ ...m, content: objects } as HistoryMessage);
}

async function compactionNote(
  omitted: number,
  runIds: readonly string[],
  receiptsOf: FitOptions["receiptsOf"],
): Promise<string> {
  const head = `[Earlier conversation compacted: ${omitted} older message(s) were left out to fit the context window.`;
  const receipts = await newestReceipts(runIds, receiptsOf);
  if (!receipts.length) return `${head}]`;
  return `${head} What their tool calls did, from the gateway's receipts (only ✅ lines were done):\n${activityLines(receipts)}]`;
}

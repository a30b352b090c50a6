import type { ReceiptReader } from "@openassistant/core/receipts";
import type { TurnRecord } from "../sessions/types.ts";
import type { Resumable } from "./resume.ts";

/** A cut-off turn older than this is closed, not answered again: a day-old reply surprises more than it helps. */
export const CUT_OFF_TURN_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** The unfinished turns a start answers again, and those it only closes (too old). */
export interface CutOffTurns {
  readonly answer: readonly TurnRecord[];
  readonly tooOld: readonly TurnRecord[];
}

/**
 * #30: of the turns a kill left unfinished, those with no run to resume (the model was streaming, or
 * between rounds). A session with a resumable run is left to that run's continuation, which closes
 * its cut turn: a turn is never answered twice. A graceful stop records its turns `aborted`, so
 * they are not here.
 */
export function cutOffTurns(
  unfinished: readonly TurnRecord[],
  resumable: readonly Resumable[],
  now: number,
): CutOffTurns {
  const resumedSessions = new Set(resumable.map((r) => r.context.sessionId));
  const left = unfinished.filter((t) => !resumedSessions.has(t.sessionId));
  return {
    answer: left.filter((t) => now - t.startedAt <= CUT_OFF_TURN_MAX_AGE_MS),
    tooOld: left.filter((t) => now - t.startedAt > CUT_OFF_TURN_MAX_AGE_MS),
  };
}

/** The runs the cut turn had finished: its session's runs active since the turn started. */
export async function runsOfCutOffTurn(reader: ReceiptReader, turn: TurnRecord): Promise<string[]> {
  const rows = await reader.runs({ session: turn.sessionId, since: turn.startedAt, limit: 1000 });
  return rows
    .filter((r) => r.started >= turn.startedAt)
    .map((r) => r.runId)
    .reverse();
}

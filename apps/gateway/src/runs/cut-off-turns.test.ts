import { describe, expect, test } from "bun:test";
import type { TurnRecord } from "../sessions/types.ts";
import { CUT_OFF_TURN_MAX_AGE_MS, cutOffTurns } from "./cut-off-turns.ts";
import type { Resumable } from "./resume.ts";

const turn = (id: string, sessionId: string, startedAt: number): TurnRecord => ({
  id,
  sessionId,
  userId: null,
  startedAt,
  finishedAt: null,
  stopReason: null,
  unverified: null,
  runIds: [],
  request: "hi",
  model: null,
  answer: null,
});
const resumableIn = (sessionId: string) => ({ context: { code: "", sessionId } }) as unknown as Resumable;

describe("#30: which unfinished turns a start answers again", () => {
  const now = 10 * CUT_OFF_TURN_MAX_AGE_MS;
  test("a session with a resumable run is left to that run's continuation; a turn older than a day is only closed", () => {
    const unfinished = [
      turn("t_run", "s_run", now - 1_000),
      turn("t_stream", "s_stream", now - 1_000),
      turn("t_edge", "s_edge", now - CUT_OFF_TURN_MAX_AGE_MS),
      turn("t_old", "s_old", now - CUT_OFF_TURN_MAX_AGE_MS - 1),
    ];
    const picked = cutOffTurns(unfinished, [resumableIn("s_run")], now);
    expect(picked.answer.map((t) => t.id)).toEqual(["t_stream", "t_edge"]);
    expect(picked.tooOld.map((t) => t.id)).toEqual(["t_old"]);
  });
});

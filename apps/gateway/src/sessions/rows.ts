import type { Session, SessionSettings, StoredMessage, TurnRecord } from "./types.ts";

/** The session tables' rows as every backend reads them (snake_case columns, JSON as text). */
export interface SessionRow {
  readonly id: string;
  readonly surface: string;
  readonly external_key: string;
  readonly created_at: number;
  readonly settings: string;
}
export interface MessageRow {
  readonly seq: number;
  readonly role: "user" | "assistant";
  readonly content: string;
  readonly turn_id: string | null;
  readonly run_ids: string;
  readonly at: number;
}
export interface TurnRow {
  readonly id: string;
  readonly session_id: string;
  readonly user_id: string | null;
  readonly started_at: number;
  readonly finished_at: number | null;
  readonly stop_reason: string | null;
  readonly unverified: number | null;
  readonly run_ids: string;
  readonly request: string | null;
  readonly model: string | null;
  readonly answer: string | null;
}

export const sessionFromRow = (r: SessionRow): Session => ({
  id: r.id,
  surface: r.surface,
  key: r.external_key,
  createdAt: r.created_at,
  settings: JSON.parse(r.settings) as SessionSettings,
});

export const turnFromRow = (r: TurnRow): TurnRecord =>
  ({
    id: r.id,
    sessionId: r.session_id,
    userId: r.user_id,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    stopReason: r.stop_reason,
    unverified: r.unverified === null ? null : r.unverified === 1,
    runIds: JSON.parse(r.run_ids),
    request: r.request,
    model: r.model,
    answer: r.answer,
  }) as TurnRecord;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A row that does not parse (a damaged file, a hand edit) is skipped rather than making the session
 * unusable; the agent loop repairs what is left (sessions/repair.ts).
 */
export function storedMessagesFromRows(rows: readonly MessageRow[]): StoredMessage[] {
  return rows.flatMap((r) => {
    const content = parseJson(r.content);
    if (content === undefined) return [];
    const runIds = parseJson(r.run_ids);
    return [
      {
        seq: r.seq,
        role: r.role,
        content: content as StoredMessage["content"],
        turnId: r.turn_id,
        runIds: Array.isArray(runIds) ? runIds : [],
        at: r.at,
      },
    ];
  });
}

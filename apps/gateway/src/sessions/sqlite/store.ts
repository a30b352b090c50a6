import type { Database } from "bun:sqlite";
import { ensureSessionSchema } from "./schema.ts";
import {
  type MessageRow,
  type SessionRow,
  sessionFromRow,
  storedMessagesFromRows,
  turnFromRow,
  type TurnRow,
} from "../rows.ts";
import { TURN_TEXT_CAPS, type SessionStore } from "../store.ts";
import type { NewMessage, SessionSettings } from "../types.ts";
import { newId } from "@openassistant/core/db";
import { cutText } from "@openassistant/core/text";

const capped = (text: string | undefined, cap: number) => (text === undefined ? null : cutText(text, cap));

/** Sessions, their messages, turns and turn events in `db` (the caller closes `db`). */
export function createSessionStore(db: Database): SessionStore {
  ensureSessionSchema(db);
  const byKey = db.query<SessionRow, [string]>(
    "SELECT id, surface, external_key, created_at, settings FROM sessions WHERE external_key = ?",
  );
  const byId = db.query<SessionRow, [string]>(
    "SELECT id, surface, external_key, created_at, settings FROM sessions WHERE id = ?",
  );
  const insertSession = db.query(
    "INSERT INTO sessions (id, surface, external_key, created_at, updated_at, settings) VALUES (?, ?, ?, ?, ?, '{}')",
  );
  const selectHistory = db.query<MessageRow, [string]>(
    "SELECT seq, role, content, turn_id, run_ids, at FROM messages WHERE session_id = ? ORDER BY seq",
  );
  const selectModelHistory = db.query<MessageRow, [string]>(
    "SELECT seq, role, content, turn_id, run_ids, at FROM messages WHERE session_id = ? AND (turn_id IS NULL OR turn_id NOT IN (SELECT id FROM turns WHERE stop_reason = 'refused')) ORDER BY seq",
  );
  const maxSeq = db.query<{ seq: number | null }, [string]>(
    "SELECT MAX(seq) AS seq FROM messages WHERE session_id = ?",
  );
  const insertMessage = db.query(
    "INSERT INTO messages (session_id, seq, role, content, turn_id, run_ids, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const touch = db.query("UPDATE sessions SET updated_at = ? WHERE id = ?");

  const append = db.transaction((sessionId: string, turnId: string | null, messages: readonly NewMessage[]) => {
    let seq = (maxSeq.get(sessionId)?.seq ?? 0) + 1;
    const now = Date.now();
    for (const m of messages) {
      insertMessage.run(
        sessionId,
        seq++,
        m.role,
        JSON.stringify(m.content),
        turnId,
        JSON.stringify(m.runIds ?? []),
        now,
      );
    }
    touch.run(now, sessionId);
  });

  return {
    async getOrCreate(key, surface) {
      const found = byKey.get(key);
      if (found) return sessionFromRow(found);
      const now = Date.now();
      const id = newId("ses");
      insertSession.run(id, surface, key, now, now);
      return sessionFromRow(byKey.get(key)!);
    },
    async get(id) {
      const row = byId.get(id);
      return row ? sessionFromRow(row) : undefined;
    },
    async updateSettings(id, settings) {
      db.query("UPDATE sessions SET settings = ?, updated_at = ? WHERE id = ?").run(
        JSON.stringify(settings),
        Date.now(),
        id,
      );
    },
    async setSettings(id, patch) {
      const current = byId.get(id);
      if (!current)
        throw new Error(
          `Unknown session "${id}": settings can only be set on an existing session (sessions.getOrCreate first).`,
        );
      const merged: Record<string, unknown> = { ...(JSON.parse(current.settings) as SessionSettings) };
      for (const [key, value] of Object.entries(patch)) {
        if (value === undefined || value === null) delete merged[key];
        else merged[key] = value;
      }
      db.query("UPDATE sessions SET settings = ?, updated_at = ? WHERE id = ?").run(
        JSON.stringify(merged),
        Date.now(),
        id,
      );
      return merged as SessionSettings;
    },
    async history(sessionId) {
      return storedMessagesFromRows(selectHistory.all(sessionId));
    },
    async modelHistory(sessionId) {
      return storedMessagesFromRows(selectModelHistory.all(sessionId));
    },
    async appendMessages(sessionId, turnId, messages) {
      // IMMEDIATE: the write lock first (waiting busy_timeout for another writer, such as the receipt
      // journal's fold worker), then the read of the last seq. A DEFERRED transaction reads first and
      // fails at its first write when another connection writes meanwhile (SQLITE_BUSY, not retried).
      if (messages.length) append.immediate(sessionId, turnId, messages);
    },
    async startTurn(turn) {
      db.query("INSERT INTO turns (id, session_id, user_id, started_at, request, model) VALUES (?, ?, ?, ?, ?, ?)").run(
        turn.id,
        turn.sessionId,
        turn.userId ?? null,
        Date.now(),
        capped(turn.request, TURN_TEXT_CAPS.request),
        capped(turn.model, TURN_TEXT_CAPS.model),
      );
    },
    async finishTurn(id, result) {
      db.query(
        "UPDATE turns SET finished_at = ?, stop_reason = ?, unverified = ?, run_ids = ?, usage = ?, answer = ?, model = COALESCE(?, model) WHERE id = ?",
      ).run(
        Date.now(),
        result.stopReason,
        result.unverified ? 1 : 0,
        JSON.stringify(result.runIds),
        result.usage === undefined ? null : JSON.stringify(result.usage),
        capped(result.answer, TURN_TEXT_CAPS.answer),
        capped(result.model, TURN_TEXT_CAPS.model),
        id,
      );
    },
    async recordTurnEvent(turnId, type, data) {
      db.query("INSERT INTO turn_events (turn_id, type, data, at) VALUES (?, ?, ?, ?)").run(
        turnId ?? null,
        type,
        JSON.stringify(data),
        Date.now(),
      );
    },
    async turnEvents(filter = {}) {
      return db
        .query<{ turn_id: string | null; type: string; data: string; at: number }, [string | null, string | null]>(
          "SELECT turn_id, type, data, at FROM turn_events WHERE (?1 IS NULL OR turn_id = ?1) AND (?2 IS NULL OR type = ?2) ORDER BY seq",
        )
        .all(filter.turnId ?? null, filter.type ?? null)
        .map((r) => ({ turnId: r.turn_id, type: r.type, data: JSON.parse(r.data), at: r.at }));
    },
    async turns(sessionId) {
      return db
        .query<TurnRow, [string]>(
          "SELECT id, session_id, user_id, started_at, finished_at, stop_reason, unverified, run_ids, request, model, answer FROM turns WHERE session_id = ? ORDER BY started_at",
        )
        .all(sessionId)
        .map(turnFromRow);
    },
    async unfinishedTurns() {
      return db
        .query<TurnRow, []>(
          "SELECT id, session_id, user_id, started_at, finished_at, stop_reason, unverified, run_ids, request, model, answer FROM turns WHERE finished_at IS NULL ORDER BY started_at",
        )
        .all()
        .map(turnFromRow);
    },
  };
}

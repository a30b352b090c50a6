import { migrate, newId, type Postgres } from "@openassistant/core/db";
import { cutText } from "@openassistant/core/text";
import { TURN_TEXT_CAPS, type SessionStore } from "../store.ts";
import type { SessionSettings } from "../types.ts";
import { SESSION_MIGRATIONS } from "./schema.ts";
import { sessionFromRow, storedMessagesFromRows, turnFromRow } from "../rows.ts";

/** PostgreSQL's SQLSTATE for a duplicate key (Appendix A, "PostgreSQL Error Codes"). */
const UNIQUE_VIOLATION = "23505";
/** Appends to one session from several gateways at the same moment: each try loses to one that committed. */
const APPEND_TRIES = 20;
const capped = (text: string | undefined, cap: number) => (text === undefined ? null : cutText(text, cap));
const SESSION_COLUMNS = "id, surface, external_key, created_at::float8 AS created_at, settings";
const MESSAGE_COLUMNS = "seq, role, content, turn_id, run_ids, at::float8 AS at";

/**
 * Sessions, their messages, turns and turn events on PostgreSQL (migrated first; the caller closes
 * `sql`). Several gateways may share it: a key's session is created once (`ON CONFLICT DO NOTHING`),
 * and two appends never keep the same message seq (the primary key; the later one tries again).
 */
export async function createPgSessionStore(sql: Postgres): Promise<SessionStore> {
  await migrate(sql, "sessions", SESSION_MIGRATIONS);
  const byKey = async (key: string) =>
    (await sql.unsafe(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE external_key = $1`, [key]))[0];
  const byId = async (id: string) =>
    (await sql.unsafe(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = $1`, [id]))[0];
  const writeSettings = (id: string, settings: SessionSettings) =>
    sql`UPDATE sessions SET settings = ${JSON.stringify(settings)}, updated_at = ${Date.now()} WHERE id = ${id}`;

  return {
    async getOrCreate(key, surface) {
      const found = await byKey(key);
      if (found) return sessionFromRow(found);
      const now = Date.now();
      await sql`INSERT INTO sessions (id, surface, external_key, created_at, updated_at, settings)
        VALUES (${newId("ses")}, ${surface}, ${key}, ${now}, ${now}, '{}') ON CONFLICT (external_key) DO NOTHING`;
      return sessionFromRow(await byKey(key));
    },
    async get(id) {
      const row = await byId(id);
      return row ? sessionFromRow(row) : undefined;
    },
    async updateSettings(id, settings) {
      await writeSettings(id, settings);
    },
    async setSettings(id, patch) {
      const current = await byId(id);
      if (!current)
        throw new Error(
          `Unknown session "${id}": settings can only be set on an existing session (sessions.getOrCreate first).`,
        );
      const merged: Record<string, unknown> = { ...(JSON.parse(current.settings) as SessionSettings) };
      for (const [key, value] of Object.entries(patch)) {
        if (value === undefined || value === null) delete merged[key];
        else merged[key] = value;
      }
      await writeSettings(id, merged as SessionSettings);
      return merged as SessionSettings;
    },
    async history(sessionId) {
      return storedMessagesFromRows(
        await sql.unsafe(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = $1 ORDER BY seq`, [sessionId]),
      );
    },
    async modelHistory(sessionId) {
      return storedMessagesFromRows(
        await sql.unsafe(
          `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = $1
           AND (turn_id IS NULL OR turn_id NOT IN (SELECT id FROM turns WHERE stop_reason = 'refused')) ORDER BY seq`,
          [sessionId],
        ),
      );
    },
    async appendMessages(sessionId, turnId, messages) {
      if (messages.length === 0) return;
      const now = Date.now();
      const rows = messages.map((m, i) => ({
        n: i + 1,
        role: m.role,
        content: JSON.stringify(m.content),
        run_ids: JSON.stringify(m.runIds ?? []),
      }));
      // One statement, one round trip: the seqs after the session's last message, the rows, the
      // session's updated_at. Two gateways appending to one session at once read the same last seq:
      // the second's INSERT meets the primary key once the first commits, and tries again on a
      // fresh snapshot (the statement is the whole transaction, so nothing of it was kept).
      for (let attempt = 1; ; attempt++) {
        try {
          await sql`WITH last AS (SELECT COALESCE(MAX(seq), 0) AS seq FROM messages WHERE session_id = ${sessionId}),
            added AS (
              INSERT INTO messages (session_id, seq, role, content, turn_id, run_ids, at)
              SELECT ${sessionId}, last.seq + r.n, r.role, r.content, ${turnId}, r.run_ids, ${now}
              FROM last, json_to_recordset(${rows}::json) AS r(n INTEGER, role TEXT, content TEXT, run_ids TEXT)
            )
            UPDATE sessions SET updated_at = ${now} WHERE id = ${sessionId}`;
          return;
        } catch (e) {
          if ((e as { errno?: string }).errno !== UNIQUE_VIOLATION || attempt >= APPEND_TRIES) throw e;
        }
      }
    },
    async startTurn(turn) {
      await sql`INSERT INTO turns (id, session_id, user_id, started_at, request, model)
        VALUES (${turn.id}, ${turn.sessionId}, ${turn.userId ?? null}, ${Date.now()},
          ${capped(turn.request, TURN_TEXT_CAPS.request)}, ${capped(turn.model, TURN_TEXT_CAPS.model)})`;
    },
    async finishTurn(id, result) {
      await sql`UPDATE turns SET finished_at = ${Date.now()}, stop_reason = ${result.stopReason},
          unverified = ${result.unverified ? 1 : 0}, run_ids = ${JSON.stringify(result.runIds)},
          usage = ${result.usage === undefined ? null : JSON.stringify(result.usage)},
          answer = ${capped(result.answer, TURN_TEXT_CAPS.answer)},
          model = COALESCE(${capped(result.model, TURN_TEXT_CAPS.model)}, model)
        WHERE id = ${id}`;
    },
    async recordTurnEvent(turnId, type, data) {
      await sql`INSERT INTO turn_events (turn_id, type, data, at) VALUES (${turnId ?? null}, ${type}, ${JSON.stringify(data)}, ${Date.now()})`;
    },
    async turnEvents(filter = {}) {
      const rows = await sql.unsafe(
        `SELECT turn_id, type, data, at::float8 AS at FROM turn_events
         WHERE ($1::text IS NULL OR turn_id = $1) AND ($2::text IS NULL OR type = $2) ORDER BY seq`,
        [filter.turnId ?? null, filter.type ?? null],
      );
      return rows.map((r: Record<string, any>) => ({
        turnId: r.turn_id,
        type: r.type,
        data: JSON.parse(r.data),
        at: r.at,
      }));
    },
    async turns(sessionId) {
      const rows = await sql.unsafe(
        `SELECT id, session_id, user_id, started_at::float8 AS started_at, finished_at::float8 AS finished_at, stop_reason,
           unverified, run_ids, request, model, answer FROM turns WHERE session_id = $1 ORDER BY started_at`,
        [sessionId],
      );
      return rows.map(turnFromRow);
    },
    async unfinishedTurns() {
      const rows = await sql.unsafe(
        `SELECT id, session_id, user_id, started_at::float8 AS started_at, finished_at::float8 AS finished_at, stop_reason,
           unverified, run_ids, request, model, answer FROM turns WHERE finished_at IS NULL ORDER BY started_at`,
      );
      return rows.map(turnFromRow);
    },
  };
}

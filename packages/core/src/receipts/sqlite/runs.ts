import type { Database } from "bun:sqlite";
import type { Conversation, RunFilter, RunRow, RunTurn } from "../port.ts";
import { type CallStatus, phaseStatus, runStatus } from "../status.ts";
import type { ReceiptPhase } from "../types.ts";

// The console's run list, on the receipts table (joined with the gateway's `sessions` and the
// console's `console_run_code` when they exist). The caller gets staged receipts in first.

const hasTable = (db: Database, name: string) =>
  db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== null;

/** Runs (newest first) from the receipts, with their conversation, tools and status. */
export function listRuns(db: Database, filter: RunFilter = {}): RunRow[] {
  const limit = Math.min(Math.max(1, filter.limit ?? 100), 1000);
  const where: string[] = [];
  const having: string[] = [];
  const args: Array<string | number> = [];
  if (filter.session) where.push("r.session_id = ?"), args.push(filter.session);
  if (filter.tool) {
    where.push("r.run_id IN (SELECT run_id FROM receipts WHERE tool_path GLOB ?)");
    args.push(filter.tool);
  }
  if (filter.q) {
    const like = `%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const fields = ["tool_path", "input_preview", "output_preview", "error", "reason"]
      .map((f) => `${f} LIKE ? ESCAPE '\\'`)
      .join(" OR ");
    const code = hasTable(db, "console_run_code")
      ? ` UNION SELECT run_id FROM console_run_code WHERE code LIKE ? ESCAPE '\\'`
      : "";
    where.push(
      `r.run_id IN (SELECT run_id FROM receipts WHERE run_id = ? OR call_id = ? OR id = ? OR ${fields}${code})`,
    );
    args.push(filter.q, filter.q, filter.q, like, like, like, like, like, ...(code ? [like] : []));
  }
  if (filter.since !== undefined) having.push("MAX(r.at) >= ?");
  if (filter.until !== undefined) having.push("MIN(r.at) <= ?");
  const sessions = hasTable(db, "sessions");
  const sql = `SELECT r.run_id AS runId, MAX(r.session_id) AS sessionId, MIN(r.at) AS started, MAX(r.at) AS last,
      COUNT(DISTINCT r.call_id) AS calls, GROUP_CONCAT(DISTINCT r.tool_path) AS tools, MAX(r.seq) AS lastSeq
    FROM receipts r ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
    GROUP BY r.run_id ${having.length ? `HAVING ${having.join(" AND ")}` : ""}
    ORDER BY lastSeq DESC LIMIT ?`;
  const scan = filter.status ? 1000 : limit;
  const rows = db
    .query(sql)
    .all(
      ...args,
      ...(filter.since !== undefined ? [filter.since] : []),
      ...(filter.until !== undefined ? [filter.until] : []),
      scan,
    ) as Array<{
    runId: string;
    sessionId: string | null;
    started: number;
    last: number;
    calls: number;
    tools: string | null;
  }>;
  if (rows.length === 0) return [];
  const statuses = statusesOf(
    db,
    rows.map((r) => r.runId),
  );
  const keys = sessions
    ? conversationKeys(
        db,
        rows.map((r) => r.sessionId).filter((s): s is string => !!s),
      )
    : new Map();
  const turns = turnsOfRuns(
    db,
    rows.map((r) => r.runId),
  );
  const out: RunRow[] = [];
  for (const r of rows) {
    const status = statuses.get(r.runId) ?? "succeeded";
    if (filter.status && status !== filter.status) continue;
    const turn = turns.get(r.runId) ?? listedTurn(db, r.runId, r.sessionId ?? undefined, r.started);
    out.push({
      runId: r.runId,
      ...(r.sessionId ? { sessionId: r.sessionId } : {}),
      ...(r.sessionId && keys.has(r.sessionId) ? { conversation: keys.get(r.sessionId) } : {}),
      started: r.started,
      last: r.last,
      calls: r.calls,
      tools: r.tools ? r.tools.split(",") : [],
      status,
      ...(turn ? { turn } : {}),
    });
    if (out.length >= limit) break;
  }
  return out;
}

function statusesOf(db: Database, runIds: readonly string[]): Map<string, CallStatus> {
  const placeholders = runIds.map(() => "?").join(",");
  const last = db
    .query(
      `SELECT run_id AS runId, call_id AS callId, phase FROM receipts WHERE seq IN
        (SELECT MAX(seq) FROM receipts WHERE run_id IN (${placeholders}) GROUP BY call_id)`,
    )
    .all(...runIds) as Array<{ runId: string; callId: string; phase: ReceiptPhase }>;
  const byRun = new Map<string, CallStatus[]>();
  for (const r of last) {
    const list = byRun.get(r.runId) ?? [];
    list.push(phaseStatus(r.phase));
    byRun.set(r.runId, list);
  }
  return new Map([...byRun].map(([run, list]) => [run, runStatus(list)]));
}

/** Conversation keys (`discord:dm:42`) of session ids, from the sessions table. */
export function conversationKeys(db: Database, ids: readonly string[]): Map<string, string> {
  if (ids.length === 0 || !hasTable(db, "sessions")) return new Map();
  const unique = [...new Set(ids)];
  const rows = db
    .query(`SELECT id, external_key AS key FROM sessions WHERE id IN (${unique.map(() => "?").join(",")})`)
    .all(...unique) as Array<{ id: string; key: string }>;
  return new Map(rows.map((r) => [r.id, r.key]));
}

/** Conversations that have receipts, newest first (for the filter). */
export function listConversations(db: Database): Conversation[] {
  if (!hasTable(db, "sessions")) return [];
  return db
    .query(
      `SELECT id, external_key AS key, surface FROM sessions
       WHERE id IN (SELECT DISTINCT session_id FROM receipts WHERE session_id IS NOT NULL)
       ORDER BY updated_at DESC LIMIT 200`,
    )
    .all() as Conversation[];
}

/** The conversation a session id names, if the sessions table has it. */
export function conversationOf(db: Database, sessionId: string | undefined): string | undefined {
  if (!sessionId || !hasTable(db, "sessions")) return undefined;
  return (db.query("SELECT external_key AS key FROM sessions WHERE id = ?").get(sessionId) as { key: string } | null)
    ?.key;
}

interface TurnRow {
  runId: string;
  turnId: string;
  userId: string | null;
  request: string | null;
  model: string | null;
  answer: string | null;
  unverified: number | null;
  stopReason: string | null;
  startedAt: number;
  finishedAt: number | null;
}

const toRunTurn = (r: TurnRow): RunTurn => ({
  turnId: r.turnId,
  startedAt: r.startedAt,
  ...(r.userId !== null ? { userId: r.userId } : {}),
  ...(r.request !== null ? { request: r.request } : {}),
  ...(r.model !== null ? { model: r.model } : {}),
  ...(r.answer !== null ? { answer: r.answer } : {}),
  ...(r.unverified !== null ? { unverified: r.unverified === 1 } : {}),
  ...(r.stopReason !== null ? { stopReason: r.stopReason } : {}),
  ...(r.finishedAt !== null ? { finishedAt: r.finishedAt } : {}),
});

const TURN_COLUMNS = `t.id AS turnId, t.user_id AS userId, t.request, t.model, t.answer, t.unverified,
  t.stop_reason AS stopReason, t.started_at AS startedAt, t.finished_at AS finishedAt`;

/** The turns runs served, by run id (the link is the run's `run.started` event, kept with its code). */
export function turnsOfRuns(db: Database, runIds: readonly string[]): Map<string, RunTurn> {
  if (runIds.length === 0 || !hasTable(db, "turns") || !hasTable(db, "console_run_code")) return new Map();
  const rows = db
    .query(
      `SELECT c.run_id AS runId, ${TURN_COLUMNS} FROM console_run_code c JOIN turns t ON t.id = c.turn_id
       WHERE c.run_id IN (${runIds.map(() => "?").join(",")})`,
    )
    .all(...runIds) as TurnRow[];
  return new Map(rows.map((r) => [r.runId, toRunTurn(r)]));
}

/**
 * The turn one run served: through its recorded code, else (a run from before the console was
 * on) the turn of its session that lists it.
 */
export function turnOfRun(
  db: Database,
  runId: string,
  sessionId: string | undefined,
  startedAt: number,
): RunTurn | undefined {
  return turnsOfRuns(db, [runId]).get(runId) ?? listedTurn(db, runId, sessionId, startedAt);
}

/**
 * A session runs one turn at a time (the keyed queue), so a run belongs to the newest turn of its
 * session that started before it (one `turns_session` index probe); it counts only if that turn's
 * `run_ids` lists the run.
 */
function listedTurn(
  db: Database,
  runId: string,
  sessionId: string | undefined,
  startedAt: number,
): RunTurn | undefined {
  if (!sessionId || !hasTable(db, "turns")) return undefined;
  const row = db
    .query(
      `SELECT ? AS runId, ${TURN_COLUMNS}, t.run_ids AS runIds FROM turns t
       WHERE t.session_id = ? AND t.started_at <= ? ORDER BY t.started_at DESC LIMIT 1`,
    )
    .get(runId, sessionId, startedAt) as (TurnRow & { runIds: string }) | null;
  if (!row) return undefined;
  let runIds: unknown;
  try {
    runIds = JSON.parse(row.runIds);
  } catch {
    return undefined;
  }
  return Array.isArray(runIds) && runIds.includes(runId) ? toRunTurn(row) : undefined;
}

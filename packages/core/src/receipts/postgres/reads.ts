import type { Postgres } from "../../db/postgres/connect.ts";
import { compact, receiptFromRow, type ReceiptRowFields } from "../rows.ts";
import { toolPatternToRegExp } from "../../tools/pattern.ts";
import type { Conversation, RunFilter, RunRow, RunTurn } from "../port.ts";
import { type CallStatus, phaseStatus, runStatus } from "../status.ts";
import type { Receipt, ReceiptPhase, ReceiptQuery } from "../types.ts";
import { PG_RECEIPT_COLUMNS } from "./schema.ts";

// Every read of the receipts on Postgres (the SQLite twins are sqlite/store.ts `query`, runs.ts).
// The caller gets staged receipts committed first. Conversations and turns come from the gateway's
// `sessions` and `turns` tables and the console's `console_run_code` when this database has them.

const PHASES = new Set(["requested", "approved", "denied", "started", "succeeded", "failed"]);
const DEFAULT_LIMIT = 200;

/** Positional parameters for `sql.unsafe`: `p(v)` returns `$n`. */
function params() {
  const values: unknown[] = [];
  const p = (v: unknown) => {
    values.push(v);
    return `$${values.length}`;
  };
  return { values, p, list: (vs: readonly unknown[]) => vs.map(p).join(", ") };
}

/** A tool glob (`calendar.*`) as a LIKE pattern: `*` (any run of them) crosses dots, like SQLite's GLOB. */
function globToLike(glob: string): string {
  let out = "";
  for (const ch of glob.replace(/\*+/g, "*"))
    out += ch === "*" ? "%" : ch === "?" ? "_" : ch === "%" || ch === "_" || ch === "\\" ? `\\${ch}` : ch;
  return out;
}

const hasTable = async (sql: Postgres, name: string) =>
  (await sql`SELECT to_regclass(${name}) IS NOT NULL AS present`)[0].present === true;

const rowToReceipt = (row: Record<string, any>): Receipt => receiptFromRow(row as ReceiptRowFields);

export async function byRuns(sql: Postgres, runIds: readonly string[]): Promise<Receipt[]> {
  if (runIds.length === 0) return [];
  const { values, list } = params();
  const rows = await sql.unsafe(
    `SELECT ${PG_RECEIPT_COLUMNS} FROM receipts WHERE run_id IN (${list(runIds)}) ORDER BY seq`,
    values,
  );
  const byRun = new Map<string, Receipt[]>();
  for (const row of rows) {
    const r = rowToReceipt(row);
    byRun.set(r.runId, [...(byRun.get(r.runId) ?? []), r]);
  }
  return runIds.flatMap((id) => byRun.get(id) ?? []);
}

export async function queryReceipts(sql: Postgres, q: ReceiptQuery): Promise<Receipt[]> {
  const limit = q.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit <= 0)
    throw new RangeError(`receipt query: limit must be a positive integer, got ${q.limit}`);
  if (q.phase !== undefined && !PHASES.has(q.phase))
    throw new RangeError(
      `receipt query: phase must be one of ${[...PHASES].join(", ")}, got ${JSON.stringify(q.phase)}`,
    );
  const { values, p } = params();
  const where: string[] = [];
  if (q.runId !== undefined) where.push(`run_id = ${p(q.runId)}`);
  if (q.callId !== undefined) where.push(`call_id = ${p(q.callId)}`);
  if (q.sessionId !== undefined) where.push(`session_id = ${p(q.sessionId)}`);
  if (q.phase !== undefined) where.push(`phase = ${p(q.phase)}`);
  if (q.since !== undefined) where.push(`at >= ${p(q.since)}`);
  if (q.until !== undefined) where.push(`at <= ${p(q.until)}`);
  let confirm: RegExp | undefined;
  if (q.tool !== undefined) {
    if (!q.tool.includes("*")) where.push(`tool_path = ${p(q.tool)}`);
    else {
      // LIKE's % crosses dots: a superset; a single `*` stays in one segment, confirmed row by row.
      where.push(`tool_path LIKE ${p(globToLike(q.tool))} ESCAPE '\\'`);
      if (q.tool.replaceAll("**", "").includes("*")) confirm = toolPatternToRegExp(q.tool);
    }
  }
  const base = `SELECT ${PG_RECEIPT_COLUMNS} FROM receipts${where.length ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY seq DESC`;
  let rows: Array<Record<string, any>>;
  if (!confirm) rows = await sql.unsafe(`${base} LIMIT ${p(limit)}`, values);
  else {
    rows = [];
    let offset = 0;
    const page = Math.max(limit, 500);
    for (;;) {
      const chunk = await sql.unsafe(`${base} LIMIT ${page} OFFSET ${offset}`, values);
      for (const row of chunk) if (confirm.test(row.tool_path) && rows.length < limit) rows.push(row);
      if (rows.length >= limit || chunk.length < page) break;
      offset += page;
    }
  }
  return rows.reverse().map(rowToReceipt);
}

/** Runs (newest first) with their conversation, tools and status. */
export async function listRuns(sql: Postgres, filter: RunFilter = {}): Promise<RunRow[]> {
  const limit = Math.min(Math.max(1, filter.limit ?? 100), 1000);
  const { values, p } = params();
  const where: string[] = [];
  const having: string[] = [];
  if (filter.session) where.push(`r.session_id = ${p(filter.session)}`);
  if (filter.tool)
    where.push(
      `r.run_id IN (SELECT run_id FROM receipts WHERE tool_path LIKE ${p(globToLike(filter.tool))} ESCAPE '\\')`,
    );
  if (filter.q) {
    const like = `%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const l = p(like);
    const fields = ["tool_path", "input_preview", "output_preview", "error", "reason"]
      .map((f) => `${f} LIKE ${l} ESCAPE '\\'`)
      .join(" OR ");
    const code = (await hasTable(sql, "console_run_code"))
      ? ` UNION SELECT run_id FROM console_run_code WHERE code LIKE ${l} ESCAPE '\\'`
      : "";
    const exact = p(filter.q);
    where.push(
      `r.run_id IN (SELECT run_id FROM receipts WHERE run_id = ${exact} OR call_id = ${exact} OR id = ${exact} OR ${fields}${code})`,
    );
  }
  if (filter.since !== undefined) having.push(`MAX(r.at) >= ${p(filter.since)}`);
  if (filter.until !== undefined) having.push(`MIN(r.at) <= ${p(filter.until)}`);
  const scan = filter.status ? 1000 : limit;
  const rows = await sql.unsafe(
    `SELECT r.run_id AS "runId", MAX(r.session_id) AS "sessionId", MIN(r.at)::float8 AS started, MAX(r.at)::float8 AS last,
      COUNT(DISTINCT r.call_id)::int AS calls, string_agg(DISTINCT r.tool_path, ',') AS tools, MAX(r.seq) AS "lastSeq"
    FROM receipts r ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
    GROUP BY r.run_id ${having.length ? `HAVING ${having.join(" AND ")}` : ""}
    ORDER BY "lastSeq" DESC LIMIT ${p(scan)}`,
    values,
  );
  if (rows.length === 0) return [];
  const runIds = rows.map((r: { runId: string }) => r.runId);
  const statuses = await statusesOf(sql, runIds);
  const keys = await conversationKeys(
    sql,
    rows.map((r: { sessionId: string | null }) => r.sessionId).filter((s: string | null): s is string => !!s),
  );
  const turns = await turnsOfRuns(sql, runIds);
  const out: RunRow[] = [];
  for (const r of rows) {
    const status = statuses.get(r.runId) ?? "succeeded";
    if (filter.status && status !== filter.status) continue;
    const turn = turns.get(r.runId) ?? (await listedTurn(sql, r.runId, r.sessionId ?? undefined, r.started));
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

async function statusesOf(sql: Postgres, runIds: readonly string[]): Promise<Map<string, CallStatus>> {
  const { values, list } = params();
  const last = await sql.unsafe(
    `SELECT run_id, phase FROM receipts WHERE seq IN
      (SELECT MAX(seq) FROM receipts WHERE run_id IN (${list(runIds)}) GROUP BY call_id)`,
    values,
  );
  const byRun = new Map<string, CallStatus[]>();
  for (const r of last) byRun.set(r.run_id, [...(byRun.get(r.run_id) ?? []), phaseStatus(r.phase as ReceiptPhase)]);
  return new Map([...byRun].map(([run, list]) => [run, runStatus(list)]));
}

export async function conversationKeys(sql: Postgres, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0 || !(await hasTable(sql, "sessions"))) return new Map();
  const { values, list } = params();
  const rows = await sql.unsafe(
    `SELECT id, external_key AS key FROM sessions WHERE id IN (${list([...new Set(ids)])})`,
    values,
  );
  return new Map(rows.map((r: { id: string; key: string }) => [r.id, r.key]));
}

export async function listConversations(sql: Postgres): Promise<Conversation[]> {
  if (!(await hasTable(sql, "sessions"))) return [];
  const rows = await sql.unsafe(
    `SELECT id, external_key AS key, surface FROM sessions
     WHERE id IN (SELECT DISTINCT session_id FROM receipts WHERE session_id IS NOT NULL)
     ORDER BY updated_at DESC LIMIT 200`,
  );
  return rows.map((r: Conversation) => ({ id: r.id, key: r.key, surface: r.surface }));
}

export async function conversationOf(sql: Postgres, sessionId: string | undefined): Promise<string | undefined> {
  if (!sessionId) return undefined;
  return (await conversationKeys(sql, [sessionId])).get(sessionId);
}

const TURN_COLUMNS = `t.id AS "turnId", t.user_id AS "userId", t.request, t.model, t.answer, t.unverified,
  t.stop_reason AS "stopReason", t.started_at::float8 AS "startedAt", t.finished_at::float8 AS "finishedAt"`;

const toRunTurn = (r: Record<string, any>): RunTurn =>
  compact({
    turnId: r.turnId,
    startedAt: r.startedAt,
    userId: r.userId,
    request: r.request,
    model: r.model,
    answer: r.answer,
    unverified: r.unverified === null ? undefined : r.unverified === true || r.unverified === 1,
    stopReason: r.stopReason,
    finishedAt: r.finishedAt,
  });

async function turnsOfRuns(sql: Postgres, runIds: readonly string[]): Promise<Map<string, RunTurn>> {
  if (runIds.length === 0 || !(await hasTable(sql, "turns")) || !(await hasTable(sql, "console_run_code")))
    return new Map();
  const { values, list } = params();
  const rows = await sql.unsafe(
    `SELECT c.run_id AS "runId", ${TURN_COLUMNS} FROM console_run_code c JOIN turns t ON t.id = c.turn_id
     WHERE c.run_id IN (${list(runIds)})`,
    values,
  );
  return new Map(rows.map((r: Record<string, any>) => [r.runId, toRunTurn(r)]));
}

export async function turnOfRun(
  sql: Postgres,
  runId: string,
  sessionId: string | undefined,
  startedAt: number,
): Promise<RunTurn | undefined> {
  return (await turnsOfRuns(sql, [runId])).get(runId) ?? (await listedTurn(sql, runId, sessionId, startedAt));
}

/** The newest turn of the session that started before the run, if its `run_ids` lists the run. */
async function listedTurn(
  sql: Postgres,
  runId: string,
  sessionId: string | undefined,
  startedAt: number,
): Promise<RunTurn | undefined> {
  if (!sessionId || !(await hasTable(sql, "turns"))) return undefined;
  const [row] = await sql.unsafe(
    `SELECT ${TURN_COLUMNS}, t.run_ids AS "runIds" FROM turns t
     WHERE t.session_id = $1 AND t.started_at <= $2 ORDER BY t.started_at DESC LIMIT 1`,
    [sessionId, startedAt],
  );
  if (!row) return undefined;
  let runIds: unknown;
  try {
    runIds = JSON.parse(row.runIds);
  } catch {
    return undefined;
  }
  return Array.isArray(runIds) && runIds.includes(runId) ? toRunTurn(row) : undefined;
}

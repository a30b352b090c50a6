import type { Database } from "bun:sqlite";
import type { ApprovalRecord, ApprovalStatus, ApprovalStore } from "../port.ts";
import type { ApprovalDecision } from "../types.ts";

interface ApprovalRow {
  call_id: string;
  run_id: string;
  session_id: string | null;
  tool_path: string;
  description: string;
  input_preview: string;
  input_json: string | null;
  summary: string | null;
  files: string | null;
  code: string | null;
  requested_by: string | null;
  requested_at: number;
  expires_at: number;
  status: ApprovalStatus;
  decided_by: string | null;
  decided_at: number | null;
  reason: string | null;
}

export function ensureApprovalSchema(db: Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS approvals (
      call_id TEXT PRIMARY KEY,
      run_id TEXT NOT NULL,
      session_id TEXT,
      tool_path TEXT NOT NULL,
      description TEXT NOT NULL,
      input_preview TEXT NOT NULL,
      code TEXT,
      requested_by TEXT,
      requested_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','approved','denied')),
      decided_by TEXT,
      decided_at INTEGER,
      reason TEXT
    );
    CREATE INDEX IF NOT EXISTS approvals_pending ON approvals (status, requested_at) WHERE status = 'pending';
    CREATE INDEX IF NOT EXISTS approvals_run ON approvals (run_id);
  `);
  // Added after the first release: databases made before it get the column, empty for old rows.
  const columns = db.query("SELECT name FROM pragma_table_info('approvals')").all() as Array<{ name: string }>;
  if (!columns.some((c) => c.name === "input_json")) db.exec("ALTER TABLE approvals ADD COLUMN input_json TEXT");
  if (!columns.some((c) => c.name === "summary")) db.exec("ALTER TABLE approvals ADD COLUMN summary TEXT");
  if (!columns.some((c) => c.name === "files")) db.exec("ALTER TABLE approvals ADD COLUMN files TEXT");
}

const COLS =
  "call_id, run_id, session_id, tool_path, description, input_preview, input_json, summary, files, code, requested_by, requested_at, expires_at, status, decided_by, decided_at, reason";

/** Approval requests in the `approvals` table of `db` (the caller closes `db`). */
export function createApprovalStore(db: Database): ApprovalStore {
  ensureApprovalSchema(db);
  const insertStmt = db.prepare(
    `INSERT OR IGNORE INTO approvals (call_id, run_id, session_id, tool_path, description, input_preview, input_json, summary, files, code, requested_by, requested_at, expires_at, status)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending')`,
  );
  const getStmt = db.prepare(`SELECT ${COLS} FROM approvals WHERE call_id = ?`);
  const decideStmt = db.prepare(
    "UPDATE approvals SET status = ?, decided_by = ?, decided_at = ?, reason = ? WHERE call_id = ? AND status = 'pending'",
  );
  const pendingStmt = db.prepare(
    `SELECT ${COLS} FROM approvals WHERE status = 'pending' ORDER BY requested_at, call_id`,
  );

  const read = (callId: string): ApprovalRecord | undefined => {
    const row = getStmt.get(callId) as ApprovalRow | null;
    return row ? rowToRecord(row) : undefined;
  };

  return {
    async insert(r) {
      const res = insertStmt.run(
        r.callId,
        r.runId,
        r.sessionId ?? null,
        r.toolPath,
        r.description,
        r.inputPreview,
        r.inputJson ?? null,
        r.summary ?? null,
        r.files?.length ? JSON.stringify(r.files) : null,
        r.code ?? null,
        r.requestedBy ?? null,
        r.requestedAt,
        r.expiresAt,
      );
      return { inserted: res.changes === 1, record: read(r.callId)! };
    },
    get: async (callId) => read(callId),
    async decide(callId, d, at) {
      return decideStmt.run(d.decision, d.by, at, d.reason ?? null, callId).changes === 1;
    },
    async listPending() {
      return (pendingStmt.all() as ApprovalRow[]).map(rowToRecord);
    },
    async close() {
      for (const st of [insertStmt, getStmt, decideStmt, pendingStmt]) st.finalize();
    },
  };
}

export function rowToRecord(row: ApprovalRow): ApprovalRecord {
  const request: Record<string, unknown> = {
    callId: row.call_id,
    runId: row.run_id,
    toolPath: row.tool_path,
    description: row.description,
    inputPreview: row.input_preview,
    requestedAt: row.requested_at,
    expiresAt: row.expires_at,
  };
  if (row.session_id !== null) request.sessionId = row.session_id;
  if (row.input_json !== null) request.inputJson = row.input_json;
  if (row.summary !== null) request.summary = row.summary;
  if (row.files !== null) request.files = JSON.parse(row.files);
  if (row.code !== null) request.code = row.code;
  if (row.requested_by !== null) request.requestedBy = row.requested_by;
  if (row.status === "pending") return { request: request as unknown as ApprovalRecord["request"], status: "pending" };
  const decision: ApprovalDecision =
    row.reason !== null
      ? { decision: row.status, by: row.decided_by ?? "unknown", reason: row.reason }
      : { decision: row.status, by: row.decided_by ?? "unknown" };
  return {
    request: request as unknown as ApprovalRecord["request"],
    status: row.status,
    decision,
    decidedAt: row.decided_at ?? undefined,
  };
}

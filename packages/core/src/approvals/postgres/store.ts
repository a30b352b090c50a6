import type { Postgres } from "../../db/postgres/connect.ts";
import type { ApprovalStore } from "../port.ts";
import { rowToRecord } from "../sqlite/store.ts";
import { APPROVAL_COLUMNS } from "./schema.ts";

/**
 * Approval requests on PostgreSQL. `decide` is a compare-and-set (`… AND status = 'pending'`):
 * the first decision wins whichever gateway or surface makes it.
 */
export function createPgApprovalStore(sql: Postgres): ApprovalStore {
  const read = async (callId: string) => {
    const [row] = await sql.unsafe(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE call_id = $1`, [callId]);
    return row ? rowToRecord(row) : undefined;
  };
  return {
    async insert(r) {
      const inserted =
        await sql`INSERT INTO approvals (call_id, run_id, session_id, tool_path, description, input_preview,
          input_json, summary, files, code, requested_by, requested_at, expires_at, status)
        VALUES (${r.callId}, ${r.runId}, ${r.sessionId ?? null}, ${r.toolPath}, ${r.description}, ${r.inputPreview},
          ${r.inputJson ?? null}, ${r.summary ?? null}, ${r.files?.length ? JSON.stringify(r.files) : null}, ${r.code ?? null},
          ${r.requestedBy ?? null}, ${r.requestedAt}, ${r.expiresAt}, 'pending')
        ON CONFLICT (call_id) DO NOTHING RETURNING call_id`;
      return { inserted: inserted.length === 1, record: (await read(r.callId))! };
    },
    get: read,
    async decide(callId, d, at) {
      const changed = await sql`UPDATE approvals SET status = ${d.decision}, decided_by = ${d.by}, decided_at = ${at},
          reason = ${d.reason ?? null} WHERE call_id = ${callId} AND status = 'pending' RETURNING call_id`;
      return changed.length === 1;
    },
    async listPending() {
      const rows = await sql.unsafe(
        `SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE status = 'pending' ORDER BY requested_at, call_id`,
      );
      return rows.map(rowToRecord);
    },
    close: async () => {},
  };
}

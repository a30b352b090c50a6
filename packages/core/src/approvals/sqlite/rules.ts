import type { Database } from "bun:sqlite";
import { matchToolPattern } from "../../tools/pattern.ts";
import type { ApprovalRule, ApprovalRuleStore, NewApprovalRule } from "../port.ts";

interface RuleRow {
  seq: number;
  tool_path: string;
  scope: "session" | "global";
  session_id: string | null;
  created_by: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  revoked_by: string | null;
}

export function createApprovalRuleStore(db: Database, options: { now?: () => number } = {}): ApprovalRuleStore {
  const now = options.now ?? Date.now;
  db.exec(`
    CREATE TABLE IF NOT EXISTS approval_rules (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      tool_path TEXT NOT NULL,
      scope TEXT NOT NULL CHECK (scope IN ('session','global')),
      session_id TEXT,
      created_by TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      expires_at INTEGER,
      revoked_at INTEGER,
      revoked_by TEXT,
      CHECK (scope = 'global' OR session_id IS NOT NULL)
    );
  `);
  const cols = "seq, tool_path, scope, session_id, created_by, created_at, expires_at, revoked_at, revoked_by";
  const insertStmt = db.prepare(
    `INSERT INTO approval_rules (tool_path, scope, session_id, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING ${cols}`,
  );
  const allStmt = db.prepare(`SELECT ${cols} FROM approval_rules ORDER BY seq`);
  const activeStmt = db.prepare(
    `SELECT ${cols} FROM approval_rules WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?) ORDER BY seq`,
  );
  const revokeStmt = db.prepare(
    "UPDATE approval_rules SET revoked_at = ?, revoked_by = ? WHERE seq = ? AND revoked_at IS NULL",
  );

  return {
    async add(rule) {
      checkNewRule(rule);
      const row = insertStmt.get(
        rule.toolPath,
        rule.scope,
        rule.scope === "session" ? rule.sessionId! : null,
        rule.createdBy,
        now(),
        rule.expiresAt ?? null,
      ) as RuleRow;
      return rowToRule(row);
    },
    async list(opts = {}) {
      const rows = (opts.activeAt === undefined ? allStmt.all() : activeStmt.all(opts.activeAt)) as RuleRow[];
      return rows.map(rowToRule);
    },
    async revoke(id, by) {
      const seq = parseRuleId(id);
      if (seq === undefined) return false;
      return revokeStmt.run(now(), by, seq).changes === 1;
    },
    async match(toolPath, sessionId, at) {
      const rows = activeStmt.all(at) as RuleRow[];
      for (let i = rows.length - 1; i >= 0; i--) {
        const row = rows[i]!;
        if (row.scope === "session" && (sessionId === undefined || row.session_id !== sessionId)) continue;
        if (matchToolPattern(row.tool_path, toolPath)) return rowToRule(row);
      }
      return undefined;
    },
    async close() {
      for (const st of [insertStmt, allStmt, activeStmt, revokeStmt]) st.finalize();
    },
  };
}

/** Refuses a bad rule with a message naming the field (every backend's `add` asks first). */
export function checkNewRule(rule: NewApprovalRule): void {
  const where = `approve-always rule for "${rule.toolPath}"`;
  if (typeof rule.toolPath !== "string" || rule.toolPath.trim() === "")
    throw new TypeError(`approve-always rule: toolPath must be a non-empty tool path or pattern`);
  if (rule.scope !== "session" && rule.scope !== "global")
    throw new TypeError(`${where}: scope must be "session" or "global"`);
  if (rule.scope === "session" && !rule.sessionId)
    throw new TypeError(`${where}: a session-scoped rule needs the sessionId it applies to`);
  if (!rule.createdBy) throw new TypeError(`${where}: createdBy (the operator) is required`);
  if (rule.expiresAt !== undefined && !Number.isFinite(rule.expiresAt))
    throw new TypeError(`${where}: expiresAt must be epoch milliseconds`);
}

export function parseRuleId(id: string): number | undefined {
  const m = /^ar_(\d+)$/.exec(id);
  return m ? Number(m[1]) : undefined;
}

export function rowToRule(row: RuleRow): ApprovalRule {
  const rule: Record<string, unknown> = {
    id: `ar_${row.seq}`,
    toolPath: row.tool_path,
    scope: row.scope,
    createdBy: row.created_by,
    createdAt: row.created_at,
  };
  if (row.session_id !== null) rule.sessionId = row.session_id;
  if (row.expires_at !== null) rule.expiresAt = row.expires_at;
  if (row.revoked_at !== null) rule.revokedAt = row.revoked_at;
  if (row.revoked_by !== null) rule.revokedBy = row.revoked_by;
  return rule as unknown as ApprovalRule;
}

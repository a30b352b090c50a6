import type { Postgres } from "../../db/postgres/connect.ts";
import { matchToolPattern } from "../../tools/pattern.ts";
import type { ApprovalRuleStore } from "../port.ts";
import { checkNewRule, parseRuleId, rowToRule } from "../sqlite/rules.ts";
import { RULE_COLUMNS } from "./schema.ts";

/** Standing "approve always" rules on PostgreSQL (the rules themselves: approvals/port.ts). */
export function createPgApprovalRuleStore(sql: Postgres, options: { now?: () => number } = {}): ApprovalRuleStore {
  const now = options.now ?? Date.now;
  const active = (at: number) =>
    sql.unsafe(
      `SELECT ${RULE_COLUMNS} FROM approval_rules WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $1) ORDER BY seq`,
      [at],
    );
  return {
    async add(rule) {
      checkNewRule(rule);
      const [row] = await sql.unsafe(
        `INSERT INTO approval_rules (tool_path, scope, session_id, created_by, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${RULE_COLUMNS}`,
        [
          rule.toolPath,
          rule.scope,
          rule.scope === "session" ? rule.sessionId! : null,
          rule.createdBy,
          now(),
          rule.expiresAt ?? null,
        ],
      );
      return rowToRule(row);
    },
    async list(opts = {}) {
      const rows =
        opts.activeAt === undefined
          ? await sql.unsafe(`SELECT ${RULE_COLUMNS} FROM approval_rules ORDER BY seq`)
          : await active(opts.activeAt);
      return rows.map(rowToRule);
    },
    async revoke(id, by) {
      const seq = parseRuleId(id);
      if (seq === undefined) return false;
      const changed =
        await sql`UPDATE approval_rules SET revoked_at = ${now()}, revoked_by = ${by} WHERE seq = ${seq} AND revoked_at IS NULL RETURNING seq`;
      return changed.length === 1;
    },
    async match(toolPath, sessionId, at) {
      const rows = await active(at);
      for (let i = rows.length - 1; i >= 0; i--) {
        const row = rows[i]!;
        if (row.scope === "session" && (sessionId === undefined || row.session_id !== sessionId)) continue;
        if (matchToolPattern(row.tool_path, toolPath)) return rowToRule(row);
      }
      return undefined;
    },
    close: async () => {},
  };
}

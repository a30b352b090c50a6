import type { Postgres } from "../../db/postgres/connect.ts";
import { migrate } from "../../db/postgres/migrate.ts";
import type { ApprovalStores } from "../sqlite/open.ts";
import { createPgApprovalRuleStore } from "./rules.ts";
import { createPgApprovalStore } from "./store.ts";
import { APPROVAL_MIGRATIONS } from "./schema.ts";

/** The PostgreSQL backend of the approval ports on `sql` (migrated first; the caller closes `sql`). */
export async function openPostgresApprovals(
  sql: Postgres,
  options: { readonly now?: () => number } = {},
): Promise<ApprovalStores> {
  await migrate(sql, "approvals", APPROVAL_MIGRATIONS);
  const store = createPgApprovalStore(sql);
  const rules = createPgApprovalRuleStore(sql, options);
  return { store, rules, close: async () => {} };
}

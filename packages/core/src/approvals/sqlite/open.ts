import type { Database } from "bun:sqlite";
import type { ApprovalRuleStore, ApprovalStore } from "../port.ts";
import { createApprovalRuleStore } from "./rules.ts";
import { createApprovalStore } from "./store.ts";

export interface ApprovalStores {
  readonly store: ApprovalStore;
  readonly rules: ApprovalRuleStore;
  /** Closes both stores (not `db`). */
  close(): Promise<void>;
}

/** The SQLite backend of the approval ports, on `db` (the caller closes `db`). */
export function openSqliteApprovals(db: Database, options: { readonly now?: () => number } = {}): ApprovalStores {
  const store = createApprovalStore(db);
  const rules = createApprovalRuleStore(db, options);
  return { store, rules, close: async () => void (await Promise.all([store.close(), rules.close()])) };
}

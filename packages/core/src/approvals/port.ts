import type { ApprovalDecision, ApprovalRequest } from "./types.ts";

// The approval broker's storage. A backend is one folder (`approvals/sqlite/` today) whose factory
// returns both stores; `packages/core/test/contracts/approvals.ts` is the suite it must pass.

export type ApprovalStatus = "pending" | "approved" | "denied";

export interface ApprovalRecord {
  readonly request: ApprovalRequest;
  readonly status: ApprovalStatus;
  /** Present once decided. */
  readonly decision?: ApprovalDecision;
  readonly decidedAt?: number;
}

/** Persistence of approval requests; a request row exists before anyone is asked. */
export interface ApprovalStore {
  /** Inserts a pending row; if the call id already exists, keeps the existing row. */
  insert(request: ApprovalRequest): Promise<{ inserted: boolean; record: ApprovalRecord }>;
  get(callId: string): Promise<ApprovalRecord | undefined>;
  /**
   * First decision wins, across every process sharing the store: only a pending row changes.
   * Resolves to whether this call changed it.
   */
  decide(callId: string, decision: ApprovalDecision, at: number): Promise<boolean>;
  /** Pending requests, oldest first. */
  listPending(): Promise<ApprovalRecord[]>;
  close(): Promise<void>;
}

/** A standing "approve always" rule: calls to matching tools are approved by `rule:<id>`. */
export interface ApprovalRule {
  /** `ar_<n>`; receipts record the decider as `rule:<id>`. */
  readonly id: string;
  /** Exact tool path or a tool pattern (`calendar.*`). */
  readonly toolPath: string;
  readonly scope: "session" | "global";
  readonly sessionId?: string;
  readonly createdBy: string;
  readonly createdAt: number;
  readonly expiresAt?: number;
  readonly revokedAt?: number;
  readonly revokedBy?: string;
}

export interface NewApprovalRule {
  readonly toolPath: string;
  readonly scope: "session" | "global";
  readonly sessionId?: string;
  readonly createdBy: string;
  readonly expiresAt?: number;
}

export interface ApprovalRuleStore {
  /** Rejects a bad rule with a message naming the field. */
  add(rule: NewApprovalRule): Promise<ApprovalRule>;
  /** All rules, oldest first; with `activeAt`, only those neither revoked nor expired then. */
  list(opts?: { activeAt?: number }): Promise<ApprovalRule[]>;
  /** True if this call revoked it; false if unknown or already revoked. */
  revoke(id: string, by: string): Promise<boolean>;
  /** Newest active rule for this tool; a session rule only matches its own session. */
  match(toolPath: string, sessionId: string | undefined, now: number): Promise<ApprovalRule | undefined>;
  close(): Promise<void>;
}

export type { ApprovalDecision, ApprovalRequest, RequestApproval } from "./types.ts";
export {
  createApprovalBroker,
  type ApprovalBroker,
  type ApprovalBrokerOptions,
  type ApprovalEvent,
  type DecideResult,
} from "./broker.ts";
export { createApprovalStore, ensureApprovalSchema, type ApprovalRecord, type ApprovalStatus, type ApprovalStore } from "./store.ts";
export { createApprovalRuleStore, type ApprovalRule, type ApprovalRuleStore, type NewApprovalRule } from "./rules.ts";

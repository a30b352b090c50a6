export type { ApprovalDecision, ApprovalRequest } from "./types.ts";
export { createApprovalBroker, type ApprovalBroker, type DecideResult } from "./broker.ts";
export type { ApprovalRecord, ApprovalRule, ApprovalRuleStore, ApprovalStore } from "./port.ts";
export { openSqliteApprovals } from "./sqlite/open.ts";
export { previewInputJson, requestInputPreview, INPUT_TOO_LARGE } from "./input-preview.ts";
export { openPostgresApprovals } from "./postgres/open.ts";
export { APPROVAL_MIGRATIONS } from "./postgres/schema.ts";

export type { ApprovalDecision, ApprovalRequest, RequestApproval } from "./types.ts";
export {
  createApprovalBroker,
  type ApprovalBroker,
  type ApprovalBrokerOptions,
  type ApprovalEvent,
  type DecideResult,
} from "./broker.ts";
export type {
  ApprovalRecord,
  ApprovalRule,
  ApprovalRuleStore,
  ApprovalStatus,
  ApprovalStore,
  NewApprovalRule,
} from "./port.ts";
export { openSqliteApprovals } from "./sqlite/open.ts";
export {
  approvalInput,
  flattenInput,
  previewInputJson,
  renderInputPreview,
  requestInputPreview,
  INPUT_TOO_LARGE,
  MAX_INPUT_JSON,
  type ApprovalInput,
  type FlatInput,
  type InputField,
  type RenderOptions,
} from "./input-preview.ts";

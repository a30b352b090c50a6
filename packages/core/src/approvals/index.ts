export type { ApprovalDecision, ApprovalRequest, RequestApproval } from "./types.ts";
export {
  createApprovalBroker,
  type ApprovalBroker,
  type ApprovalBrokerOptions,
  type ApprovalEvent,
  type DecideResult,
} from "./broker.ts";
export {
  createApprovalStore,
  ensureApprovalSchema,
  type ApprovalRecord,
  type ApprovalStatus,
  type ApprovalStore,
} from "./store.ts";
export { createApprovalRuleStore, type ApprovalRule, type ApprovalRuleStore, type NewApprovalRule } from "./rules.ts";
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

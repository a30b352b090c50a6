export type { Decision, PolicyMode, Receipt, ReceiptDraft, ReceiptPhase, ReceiptQuery, ReceiptStore } from "./types.ts";
export { createSqliteReceiptStore, receiptId, type SqliteReceiptStoreOptions } from "./sqlite-store.ts";
export { ensureReceiptSchema } from "./schema.ts";
export { canonicalReceiptJson, receiptHash } from "./hash.ts";
export { callStatus, phaseStatus, type CallStatus } from "./status.ts";
export { clipText, createRedactor, previewJson, REDACTED, redactDeep } from "./redact.ts";
export {
  formatSummaryForModel,
  summarizeRun,
  type ActivityItem,
  type ActivitySummary,
  type FormatOptions,
  type SummaryOptions,
} from "./summary.ts";

export type {
  Decision,
  PolicyMode,
  Receipt,
  ReceiptDraft,
  ReceiptPhase,
  ReceiptQuery,
  VerifyResult,
} from "./types.ts";
export type { Conversation, ReceiptLog, ReceiptReader, RunFilter, RunRow, RunTurn } from "./port.ts";
export {
  DEFAULT_PERIOD,
  isPeriod,
  OUTCOMES,
  OVERVIEW_LIMITS,
  PERIODS,
  percentile,
  type ApproverWait,
  type Bucket,
  type DeniedCall,
  type Outcome,
  type Overview,
  type Period,
  type ToolStats,
} from "./overview.ts";
export { createSqliteReceiptStore, type SqliteReceiptStoreOptions } from "./sqlite/store.ts";
export { openSqliteReceipts } from "./sqlite/ports.ts";
export { receiptId } from "./sqlite/chain-writer.ts";
export { ensureReceiptSchema } from "./sqlite/schema.ts";
export { canonicalReceiptJson, receiptHash } from "./hash.ts";
export { receiptMac, genesisMac } from "./mac.ts";
export { loadReceiptKey, receiptKeyPath, RECEIPT_KEY_FILENAME } from "./key.ts";
export { RECEIPT_FIELD_CAPS, RUN_TEXT_BUDGET, RUN_SPENT_CAP, receiptTextBound } from "./bounds.ts";
export { callStatus, phaseStatus, RUN_STATUSES, type CallStatus } from "./status.ts";
export { clipText, createRedactor, MIN_SECRET_LENGTH, previewJson, REDACTED, redactDeep } from "./redact.ts";
export {
  CREDENTIAL_SOURCES,
  createSecretRegistry,
  type CredentialSource,
  type SecretRegistry,
  type SecretSink,
} from "./secret-registry.ts";
export {
  formatSummaryForModel,
  summarizeRun,
  type ActivityItem,
  type ActivitySummary,
  type FormatOptions,
  type SummaryOptions,
} from "./summary.ts";

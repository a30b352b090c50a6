export type { Receipt, ReceiptQuery } from "./types.ts";
export type { Conversation, ReceiptLog, ReceiptReader, RunRow, RunTurn } from "./port.ts";
export { DEFAULT_PERIOD, isPeriod, OUTCOMES, PERIODS, type Overview, type Period } from "./overview.ts";
export { openSqliteReceipts } from "./sqlite/ports.ts";
export { receiptKeyPath } from "./key.ts";
export { callStatus, phaseStatus, RUN_STATUSES, type CallStatus } from "./status.ts";
export { createRedactor, redactDeep } from "./redact.ts";
export { createSecretRegistry, type SecretRegistry, type SecretSink } from "./secret-registry.ts";
export { formatSummaryForModel, summarizeRun, type ActivityItem, type ActivitySummary } from "./summary.ts";

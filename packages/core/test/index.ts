/**
 * `@openassistant/core/testing`: the production names that only tests outside core import (to
 * build a receipt by hand, check a hash, list the credential sources, …). Production code never
 * imports this entry (`scripts/boundaries.test.ts`); a name production needs belongs in its
 * capability's entry instead.
 */
export { approvalInput } from "../src/approvals/input-preview.ts";
export { marksSecret, SECRET_KEY } from "../src/config/secret-fields.ts";
export { registerSdkModule } from "../src/plugins/sdk-module.ts";
export type { ReceiptDraft } from "../src/receipts/types.ts";
export { createSqliteReceiptStore } from "../src/receipts/sqlite/store.ts";
export { CREDENTIAL_SOURCES, type CredentialSource } from "../src/receipts/secret-registry.ts";
export { McpOAuthStore } from "../src/sources/mcp/oauth-store.ts";
export { closeMcpConnections } from "../src/sources/mcp/index.ts";
export { indexToolTree } from "../src/tools/flatten.ts";
export { sha256Hex } from "../src/workspace/source-check.ts";

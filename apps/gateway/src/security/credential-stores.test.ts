/**
 * A structural rule that keeps a new credential store from being forgotten: every production file
 * that keeps something in a private (0600) file is either a credential store, registered with the
 * redactor under one of CREDENTIAL_SOURCES (and so a case of credentials.e2e.test.ts, whose table
 * is typed by that list), or listed here with the reason it holds no credential.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { CREDENTIAL_SOURCES, type CredentialSource } from "@openassistant/core/testing";

const root = join(import.meta.dir, "../../../..");

/** File that writes or reads the private file → the source it registers as, and where it registers. */
const STORES: Record<string, { source: CredentialSource; registeredIn: string }> = {
  "apps/gateway/src/auth/store.ts": { source: "auth-profile", registeredIn: "apps/gateway/src/auth/resolve.ts" },
  "apps/gateway/src/http/token.ts": { source: "http-token", registeredIn: "apps/gateway/src/http/token.ts" },
  "apps/gateway/src/console/signing.ts": { source: "console-key", registeredIn: "apps/gateway/src/console/signing.ts" },
  "packages/core/src/sources/mcp/oauth-store.ts": {
    source: "mcp-oauth",
    registeredIn: "packages/core/src/sources/mcp/oauth.ts",
  },
  "packages/core/src/receipts/key.ts": {
    source: "receipt-key",
    registeredIn: "packages/core/src/receipts/sqlite/store.ts",
  },
};

/** Private files that hold no credential. */
const NOT_CREDENTIALS: Record<string, string> = {
  "apps/gateway/src/clients/tokens.ts":
    "client tokens' SHA-256 digests only (a digest opens nothing); the tokens clients present are registered as http-token by clients/hub.ts",
  "apps/gateway/src/mcp-server/tokens.ts":
    "MCP client tokens' SHA-256 digests only; the tokens clients present are registered as http-token by services/mcp-server.ts",
  "packages/core/src/config/private-file.ts": "the helper that writes private files for the stores above",
  "packages/core/src/receipts/head.ts": "the receipt chain's head: a sequence number and a MAC, public by design",
  "packages/core/src/receipts/sqlite/journal.ts":
    "receipts not yet folded into SQLite, already redacted like the database",
  "packages/core/src/receipts/replay/file-journal.ts":
    "a run's replay record (call order, input hashes, answers redacted like receipts, clock reads, a random seed)",
};

const PRIVATE_FILE = /writePrivateFile\(|loadOrCreateSecretFile\(|0o600/;

test("every file kept private is a registered credential store or says why it holds none", async () => {
  const found: string[] = [];
  for await (const path of new Bun.Glob("{apps,packages,integrations}/*/src/**/*.ts").scan({ cwd: root })) {
    if (path.includes("node_modules/") || path.endsWith(".test.ts")) continue;
    if (PRIVATE_FILE.test(await Bun.file(join(root, path)).text())) found.push(path);
  }
  expect(found.sort()).toEqual([...Object.keys(STORES), ...Object.keys(NOT_CREDENTIALS)].sort());

  for (const [store, { source, registeredIn }] of Object.entries(STORES)) {
    const text = await Bun.file(join(root, registeredIn)).text();
    const registers = new RegExp(`\\.add\\(\\s*"${source}"`).test(text);
    expect({ store, source, registers }).toEqual({ store, source, registers: true });
  }
  // Every source is someone's: a store above, or a config/surface source registered where it is read.
  const others: CredentialSource[] = ["config-var", "config-field", "plugin-secret", "surface-token"];
  expect([...Object.values(STORES).map((s) => s.source), ...others].sort()).toEqual([...CREDENTIAL_SOURCES].sort());
});

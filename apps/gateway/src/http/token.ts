import { loadOrCreateSecretFile } from "@openassistant/core/config";
import { join } from "node:path";
import type { SecretSink } from "@openassistant/core/receipts";

const HTTP_TOKEN_FILE = "http-token";
/** What the gateway writes: `oa_` and 32 random bytes, base64url. */
const STORED_TOKEN = /^oa_[A-Za-z0-9_-]{43}$/;

/**
 * The HTTP API bearer token: config `http.token`, else the one stored (0600) in the data dir,
 * else a new random one written there, registered with the redactor. `created` tells the caller
 * to print it once.
 */
export function resolveHttpToken(
  dataDir: string,
  configured: string | undefined,
  secrets: SecretSink,
): { token: string; created: boolean; path?: string } {
  if (configured) {
    secrets.add("http-token", [configured]);
    return { token: configured, created: false };
  }
  const path = join(dataDir, HTTP_TOKEN_FILE);
  const { text, created } = loadOrCreateSecretFile(path, {
    valid: STORED_TOKEN,
    make: () => `oa_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")}`,
    invalid:
      "is not an HTTP token made by the gateway (expected oa_ and 43 characters). Delete it: a new one is made and printed on the next start (clients using the old one must be given the new one), or set http.token in the config.",
  });
  secrets.add("http-token", [text]);
  return { token: text, created, path };
}

/** Constant-time check of an `Authorization: Bearer <token>` header. */
export function bearerMatches(header: string | null, token: string): boolean {
  if (!header) return false;
  const m = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!m) return false;
  const given = Buffer.from(m[1]!.trim());
  const expected = Buffer.from(token);
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

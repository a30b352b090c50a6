import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const HTTP_TOKEN_FILE = "http-token";

/**
 * The HTTP API bearer token: config `http.token`, else the one stored (0600) in the data dir,
 * else a new random one written there. `created` tells the caller to print it once.
 */
export function resolveHttpToken(
  dataDir: string,
  configured?: string,
): { token: string; created: boolean; path?: string } {
  if (configured) return { token: configured, created: false };
  const path = join(dataDir, HTTP_TOKEN_FILE);
  if (existsSync(path)) {
    const mode = statSync(path).mode & 0o777;
    if (mode & 0o077) chmodSync(path, 0o600);
    const token = readFileSync(path, "utf8").trim();
    if (token) return { token, created: false, path };
  }
  mkdirSync(dataDir, { recursive: true });
  const token = `oa_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")}`;
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return { token, created: true, path };
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

import { loadOrCreateSecretFile } from "@openassistant/core/config";
import type { SecretSink } from "@openassistant/core/receipts";
import { join } from "node:path";

/** `<data dir>/console-key`: signs receipt links and operator logins (mode 0600, like the HTTP token). */
export const CONSOLE_KEY_FILE = "console-key";

/** What a signed token grants. `run`: read one run's page. `login`/`session`: act as an operator. */
export type Grant =
  | { readonly kind: "run"; readonly runId: string; readonly exp: number }
  | { readonly kind: "login"; readonly operator: string; readonly exp: number }
  | { readonly kind: "session"; readonly operator: string; readonly exp: number };

export type CheckResult =
  | { readonly ok: true; readonly grant: Grant }
  | { readonly ok: false; readonly reason: "malformed" | "signature" | "expired" };

/**
 * Loads the console key from the data dir, creating 32 random bytes (hex, 0600) on first use, and
 * registers it with the redactor.
 */
export function loadConsoleKey(dataDir: string, secrets: SecretSink): Uint8Array {
  const { text } = loadOrCreateSecretFile(join(dataDir, CONSOLE_KEY_FILE), {
    valid: /^[0-9a-f]{64}$/,
    make: () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex"),
    invalid:
      "is not a console key (expected 64 hex characters). Delete it: a new key is made on the next start (links and logins signed with the old one stop working).",
  });
  secrets.add("console-key", [text]);
  return Buffer.from(text, "hex");
}

/** Signs and checks grants: `<base64url JSON>.<base64url HMAC-SHA256>`. */
export function createSigner(key: Uint8Array, now: () => number = Date.now) {
  const mac = (body: string) => new Bun.CryptoHasher("sha256", key).update(`oa-console\n${body}`).digest();
  return {
    sign(grant: Grant): string {
      const body = Buffer.from(JSON.stringify(grant)).toString("base64url");
      return `${body}.${mac(body).toString("base64url")}`;
    },
    check(token: string | null | undefined): CheckResult {
      const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/.exec(token ?? "");
      if (!m) return { ok: false, reason: "malformed" };
      // Compared as text, not decoded bytes: a signature's last character carries two unused bits, so
      // four spellings decode alike; only the one the signer writes is accepted.
      const given = Buffer.from(m[2]!);
      const expected = Buffer.from(mac(m[1]!).toString("base64url"));
      if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected))
        return { ok: false, reason: "signature" };
      let grant: Grant;
      try {
        grant = JSON.parse(Buffer.from(m[1]!, "base64url").toString("utf8")) as Grant;
      } catch {
        return { ok: false, reason: "malformed" };
      }
      if (typeof grant?.exp !== "number" || !["run", "login", "session"].includes(grant.kind))
        return { ok: false, reason: "malformed" };
      if (grant.exp <= now()) return { ok: false, reason: "expired" };
      return { ok: true, grant };
    },
  };
}
export type Signer = ReturnType<typeof createSigner>;

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writePrivateFile } from "@openassistant/core/config";

/**
 * Client tokens (#34): each one opens only the client connection (`/client`), never the rest of
 * the HTTP API, and each can be revoked on its own. Only a SHA-256 of the secret is stored
 * (`client-tokens.json`, 0600, in the data dir), so the file does not hand out working tokens.
 * Every check re-reads the file: a token revoked by `openassistant clients revoke` (another
 * process) is refused from the next check on.
 */
export interface ClientTokenRecord {
  readonly id: string;
  /** Who holds it (`laptop`); shown in receipts' `requestedBy` as `client:<name>`. */
  readonly name: string;
  readonly sha256: string;
  readonly createdAt: string;
}

export interface ClientTokens {
  /** Makes a token; the secret is returned once and never stored. */
  create(name: string): { readonly token: string; readonly record: ClientTokenRecord };
  list(): readonly ClientTokenRecord[];
  /** False when no token has this id or name. */
  revoke(idOrName: string): boolean;
  /** The token's record when `token` is a live client token, else undefined. */
  verify(token: string): ClientTokenRecord | undefined;
}

const FILE = "client-tokens.json";
/** `oac_<id>_<secret>`: the id (8 hex) names the record, the secret is 32 random bytes (base64url). */
const TOKEN_SHAPE = /^oac_([0-9a-f]{8})_([A-Za-z0-9_-]{43})$/;
const NAME_SHAPE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function clientTokensPath(dataDir: string): string {
  return join(dataDir, FILE);
}

export function openClientTokens(dataDir: string): ClientTokens {
  const path = clientTokensPath(dataDir);
  const read = (): ClientTokenRecord[] => {
    if (!existsSync(path)) return [];
    const parsed = JSON.parse(readFileSync(path, "utf8")) as { tokens?: unknown };
    if (!Array.isArray(parsed.tokens))
      throw new Error(`${path} is not a client token file (no "tokens" list); delete it and create the tokens again`);
    return parsed.tokens as ClientTokenRecord[];
  };
  const write = (tokens: readonly ClientTokenRecord[]) =>
    writePrivateFile(path, `${JSON.stringify({ tokens }, null, 2)}\n`);

  return {
    create(name) {
      if (!NAME_SHAPE.test(name))
        throw new Error(
          `client token name "${name.slice(0, 80)}" is not allowed: use 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
        );
      const tokens = read();
      if (tokens.some((t) => t.name === name))
        throw new Error(`a client token named "${name}" exists; revoke it first or choose another name`);
      const id = Buffer.from(crypto.getRandomValues(new Uint8Array(4))).toString("hex");
      const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
      const token = `oac_${id}_${secret}`;
      const record: ClientTokenRecord = { id, name, sha256: digest(token), createdAt: new Date().toISOString() };
      write([...tokens, record]);
      return { token, record };
    },
    list: read,
    revoke(idOrName) {
      const tokens = read();
      const left = tokens.filter((t) => t.id !== idOrName && t.name !== idOrName);
      if (left.length === tokens.length) return false;
      write(left);
      return true;
    },
    verify(token) {
      const m = TOKEN_SHAPE.exec(token);
      if (!m) return undefined;
      const record = read().find((t) => t.id === m[1]);
      if (!record) return undefined;
      const given = Buffer.from(digest(token), "hex");
      const stored = Buffer.from(record.sha256, "hex");
      return given.length === stored.length && crypto.timingSafeEqual(given, stored) ? record : undefined;
    },
  };
}

const digest = (token: string) => new Bun.CryptoHasher("sha256").update(token).digest("hex");

/** The bearer token of an `Authorization: Bearer <token>` header, if any. */
export function bearerToken(header: string | null): string | undefined {
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header.trim()) : null;
  return m?.[1];
}

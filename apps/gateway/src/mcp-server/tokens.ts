import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { writePrivateFile } from "@openassistant/core/config";

/** Where the MCP clients' tokens live: hashes only, 0600, in the data dir. */
const MCP_TOKENS_FILE = "mcp-server-tokens.json";

/** What `create` hands out once: `oamcp_` and 32 random bytes, base64url. */
const TOKEN_SHAPE = /^oamcp_[A-Za-z0-9_-]{43}$/;
/** A client's name: it names the caller in receipts and on approval cards, so it stays plain. */
const CLIENT_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;

/** One MCP client allowed in: its name, the SHA-256 of its token, and the tools it may use. */
export interface McpClientToken {
  readonly name: string;
  /** Hex SHA-256 of the token; the token itself is shown once and never stored. */
  readonly sha256: string;
  /** Tool path patterns this client may list and call, within `mcpServer.tools`; absent = all of those. */
  readonly tools?: readonly string[];
  readonly createdAt: number;
}

interface TokenFile {
  readonly version: 1;
  readonly clients: readonly McpClientToken[];
}

const sha256 = (text: string): Buffer => new Bun.CryptoHasher("sha256").update(text).digest();

/**
 * The MCP server's client tokens (`openassistant mcp-server token create|list|revoke`): each one
 * opens the MCP endpoint and nothing else (not the HTTP API nor the console), for one named client
 * and the tools it was given. The file is read again whenever it changes, so a revoked token stops
 * working on its next request, without a restart.
 */
export function openMcpTokens(dataDir: string) {
  const path = join(dataDir, MCP_TOKENS_FILE);
  let cached: { mtimeMs: number; size: number; clients: readonly McpClientToken[] } | undefined;

  function read(): readonly McpClientToken[] {
    if (!existsSync(path)) return ((cached = undefined), []);
    const st = statSync(path);
    if (cached && cached.mtimeMs === st.mtimeMs && cached.size === st.size) return cached.clients;
    const clients = parse(readFileSync(path, "utf8"), path);
    cached = { mtimeMs: st.mtimeMs, size: st.size, clients };
    return clients;
  }

  function write(clients: readonly McpClientToken[]): void {
    writePrivateFile(path, `${JSON.stringify({ version: 1, clients } satisfies TokenFile, null, 2)}\n`);
    cached = undefined;
  }

  return {
    path,
    list: read,
    /** A new token for `name` (shown once); an existing name is refused (revoke it first). */
    create(name: string, tools?: readonly string[]): string {
      if (!CLIENT_NAME.test(name))
        throw new Error(
          `MCP client name "${name}" is not allowed: use 1-40 lowercase letters, digits, _ or -, starting with a letter or digit (e.g. "vscode")`,
        );
      const clients = read();
      if (clients.some((c) => c.name === name))
        throw new Error(
          `an MCP client named "${name}" already has a token; revoke it first (openassistant mcp-server token revoke ${name}) or pick another name`,
        );
      const token = `oamcp_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")}`;
      const entry: McpClientToken = {
        name,
        sha256: sha256(token).toString("hex"),
        ...(tools && tools.length > 0 ? { tools: [...tools] } : {}),
        createdAt: Date.now(),
      };
      write([...clients, entry]);
      return token;
    },
    /** Removes `name`'s token; false when there was none. */
    revoke(name: string): boolean {
      const clients = read();
      if (!clients.some((c) => c.name === name)) return false;
      write(clients.filter((c) => c.name !== name));
      return true;
    },
    /** The client an `Authorization: Bearer <token>` header is for, or undefined (compared in constant time). */
    clientFor(header: string | null): McpClientToken | undefined {
      const token = bearerToken(header);
      if (!token || !TOKEN_SHAPE.test(token)) return undefined;
      const given = sha256(token);
      let found: McpClientToken | undefined;
      // Every entry is compared (no early exit), each in constant time, on fixed-length digests.
      for (const c of read()) {
        const stored = Buffer.from(c.sha256, "hex");
        if (stored.length === given.length && crypto.timingSafeEqual(stored, given)) found = c;
      }
      return found;
    },
  };
}

export type McpTokens = ReturnType<typeof openMcpTokens>;

export function bearerToken(header: string | null): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header.trim());
  return m?.[1];
}

function parse(text: string, path: string): readonly McpClientToken[] {
  const fix = `fix it or delete it (every MCP client then needs a new token: openassistant mcp-server token create <name>)`;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new Error(`${path} is not valid JSON (${e instanceof Error ? e.message : String(e)}); ${fix}`);
  }
  const clients = (data as { clients?: unknown } | null)?.clients;
  if (!Array.isArray(clients)) throw new Error(`${path} has no "clients" list; ${fix}`);
  return clients.map((c, i) => {
    const entry = c as Partial<McpClientToken> | null;
    if (
      !entry ||
      typeof entry.name !== "string" ||
      !CLIENT_NAME.test(entry.name) ||
      typeof entry.sha256 !== "string" ||
      !/^[0-9a-f]{64}$/.test(entry.sha256) ||
      (entry.tools !== undefined &&
        (!Array.isArray(entry.tools) || !entry.tools.every((t) => typeof t === "string" && t.length > 0)))
    )
      throw new Error(`${path}: clients[${i}] is not a client entry (name, sha256, tools?); ${fix}`);
    return {
      name: entry.name,
      sha256: entry.sha256,
      ...(entry.tools ? { tools: entry.tools } : {}),
      createdAt: typeof entry.createdAt === "number" ? entry.createdAt : 0,
    };
  });
}

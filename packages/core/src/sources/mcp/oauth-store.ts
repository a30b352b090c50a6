import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { writePrivateFile } from "../../config/private-file.ts";
import { defineOwn, ownValue } from "../../tools/own-keys.ts";

export const MCP_OAUTH_FILENAME = "mcp-oauth.json";

/** `<configDir>/mcp-oauth.json`, beside `auth-profiles.json`. */
export function mcpOAuthPath(configDir: string): string {
  return join(configDir, MCP_OAUTH_FILENAME);
}

/** What `openassistant mcp login <name>` saved for one server. */
export interface McpOAuthEntry {
  /** The MCP server URL it was obtained for: a changed `url` in the config needs a new login. */
  serverUrl: string;
  /** The registered client (dynamic registration, RFC 7591), stamped with its authorization server. */
  client?: OAuthClientInformationMixed;
  /** Access and refresh token as the SDK saved them (with `issuer`), and when (ISO time). */
  tokens?: OAuthTokens & { issuer?: string };
  tokensSavedAt?: string;
  /** The loopback redirect URI registered at login. */
  redirectUrl?: string;
  /** RFC 9728 / RFC 8414 discovery results, so a reconnect does not rediscover. */
  discovery?: OAuthDiscoveryState;
  updatedAt: string;
}

interface Data {
  version: 1;
  servers: Record<string, McpOAuthEntry>;
}

export class McpOAuthStoreError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = "McpOAuthStoreError";
  }
}

/**
 * OAuth tokens and client registrations of MCP servers: one file, mode 0600, refused when other
 * users can read it (the same rules as auth profiles). Every call re-reads the file, so a running
 * gateway sees a login the CLI just saved; every write is atomic (temp file, fsync, rename).
 */
export class McpOAuthStore {
  readonly path: string;

  constructor(readonly configDir: string) {
    this.path = mcpOAuthPath(configDir);
  }

  /** The entry saved for this server at this URL (an entry for another URL does not count). */
  get(name: string, serverUrl: string): McpOAuthEntry | undefined {
    const e = ownValue(this.read().servers, name);
    return e && e.serverUrl === serverUrl ? e : undefined;
  }

  /** Changes one server's entry (created for this URL when missing or saved for another URL). */
  update(name: string, serverUrl: string, change: (e: McpOAuthEntry) => void): void {
    const data = this.read();
    const existing = ownValue(data.servers, name);
    const entry: McpOAuthEntry =
      existing && existing.serverUrl === serverUrl ? existing : { serverUrl, updatedAt: new Date().toISOString() };
    change(entry);
    entry.updatedAt = new Date().toISOString();
    defineOwn(data.servers, name, entry);
    this.write(data);
  }

  read(): Data {
    let mode: number;
    try {
      mode = statSync(this.path).mode;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return { version: 1, servers: {} };
      throw new McpOAuthStoreError(`Cannot read ${this.path}: ${(e as Error).message}`, this.path);
    }
    if ((mode & 0o077) !== 0) {
      const octal = (mode & 0o777).toString(8).padStart(3, "0");
      throw new McpOAuthStoreError(
        `Refusing to read ${this.path}: it holds MCP OAuth tokens but is readable by other users (mode ${octal}). ` +
          `Run: chmod 600 ${this.path}`,
        this.path,
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(this.path, "utf8"));
    } catch (e) {
      throw new McpOAuthStoreError(
        `${this.path} is not valid JSON (${(e as Error).message}). Delete it and run \`openassistant mcp login <name>\` again.`,
        this.path,
      );
    }
    const servers = (json as { servers?: unknown }).servers;
    if (typeof servers !== "object" || servers === null || Array.isArray(servers))
      throw new McpOAuthStoreError(
        `${this.path}: "servers" must be an object of server name → saved login. Delete the file and log in again.`,
        this.path,
      );
    for (const [name, e] of Object.entries(servers as Record<string, unknown>)) {
      const entry = e as Partial<McpOAuthEntry> | null;
      if (typeof entry !== "object" || entry === null || typeof entry.serverUrl !== "string")
        throw new McpOAuthStoreError(
          `${this.path}: servers.${name} must be an object with "serverUrl". ` +
            `Remove it and run \`openassistant mcp login ${name}\`.`,
          this.path,
        );
      if (entry.tokens !== undefined && typeof entry.tokens?.access_token !== "string")
        throw new McpOAuthStoreError(
          `${this.path}: servers.${name}.tokens has no access_token. Run \`openassistant mcp login ${name}\`.`,
          this.path,
        );
    }
    return { version: 1, servers: servers as Record<string, McpOAuthEntry> };
  }

  private write(data: Data): void {
    writePrivateFile(this.path, `${JSON.stringify(data, null, 2)}\n`);
  }
}

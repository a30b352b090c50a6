import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { McpLoginRequiredError, McpOAuthProvider, type McpOAuthConfig } from "./oauth.ts";
import { McpOAuthStore } from "./oauth-store.ts";
import type { SecretSink } from "../../receipts/secret-registry.ts";
import { capMessages, MCP_MESSAGE_BYTES } from "./message-cap.ts";
import { boundedOutputValidator } from "./output-validator.ts";

export type McpServerConfig =
  | {
      readonly url: string;
      readonly headers?: Readonly<Record<string, string>>;
      /** Authorization code + PKCE; tokens from `openassistant mcp login <name>`. */
      readonly oauth?: McpOAuthConfig;
    }
  | {
      readonly command: string;
      readonly args?: readonly string[];
      readonly env?: Readonly<Record<string, string>>;
      readonly cwd?: string;
      readonly allowProcess: boolean;
    };

/**
 * The SDK's client side, imported on the first connection: it costs ~250 ms to import, and a gateway
 * or CLI command without MCP servers (or one that never calls them) should not pay for it.
 */
let sdk: Promise<McpClientSdk> | undefined;
type McpClientSdk = Awaited<ReturnType<typeof importSdk>>;
async function importSdk() {
  const [
    { Client },
    { StdioClientTransport },
    { StreamableHTTPClientTransport },
    { ToolListChangedNotificationSchema },
  ] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  return { Client, StdioClientTransport, StreamableHTTPClientTransport, ToolListChangedNotificationSchema };
}

const BACKOFF_MS = [1_000, 2_000, 5_000, 15_000, 60_000];

/**
 * One MCP server: connects on first use, lists its tools (all pages), reconnects with backoff after
 * the server dies, and tells `onToolsChanged` when the server announces a new tool list.
 */
export class McpConnection {
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private failures = 0;
  /** Set when the server sent a message past `MCP_MESSAGE_BYTES` (the connection is then closed). */
  private oversized: Error | undefined;
  private retryAt = 0;
  private readonly listeners = new Set<() => void>();
  private readonly secretSinks = new Set<SecretSink>();
  /** Hands what the connection's OAuth login reads or refreshes to every registry that uses it. */
  private readonly secrets: SecretSink = {
    add: (source, values) => {
      const list = [...values];
      for (const sink of this.secretSinks) sink.add(source, list);
    },
  };

  constructor(
    readonly name: string,
    private readonly config: McpServerConfig,
    /** Where `mcp-oauth.json` lives (the config dir); needed by servers with `oauth`. */
    private readonly configDir?: string,
  ) {}

  /** A gateway's secret registry: OAuth tokens and client secrets are registered with it as they are read or obtained. */
  addSecretSink(sink: SecretSink): void {
    this.secretSinks.add(sink);
  }

  onToolsChanged(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async listTools(): Promise<Tool[]> {
    const client = await this.connect();
    const tools: Tool[] = [];
    let cursor: string | undefined;
    try {
      do {
        const page = await client.listTools(cursor ? { cursor } : {});
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor && tools.length < 10_000);
    } catch (error) {
      throw this.oversized ?? error;
    }
    return tools;
  }

  async callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
    const client = await this.connect();
    const result = await client.callTool({ name, arguments: args }, undefined, {
      ...(signal ? { signal } : {}),
      timeout: 600_000,
    });
    if (result.isError) {
      const text = (result.content as Array<{ type: string; text?: string }> | undefined)
        ?.map((c) => (c.type === "text" ? c.text : `[${c.type}]`))
        .join("\n");
      throw new Error(text || `${this.name}.${name} reported an error`);
    }
    return result.structuredContent ?? result.content;
  }

  async close(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    await c?.close().catch(() => {});
  }

  private connect(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    if (this.connecting) return this.connecting;
    const wait = this.retryAt - Date.now();
    if (wait > 0)
      return Promise.reject(
        new Error(`MCP server "${this.name}" is unreachable; retrying in ${Math.ceil(wait / 1000)} s`),
      );
    this.connecting = this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<Client> {
    const lib = await (sdk ??= importSdk());
    // The server's output schemas are checked like input schemas: bounded, patterns on RE2 (not Ajv's RegExp).
    const client = new lib.Client(
      { name: "openassistant", version: "0.1.0" },
      { capabilities: {}, jsonSchemaValidator: boundedOutputValidator },
    );
    client.setNotificationHandler(lib.ToolListChangedNotificationSchema, async () => {
      for (const l of this.listeners) l();
    });
    client.onclose = () => {
      if (this.client === client) this.client = undefined;
    };
    // A stdio line past maxBufferSize closes the transport with the SDK's own words: say which limit it was.
    this.oversized = undefined;
    client.onerror = (error) => {
      if (/^ReadBuffer exceeded maximum size/.test(error.message))
        this.oversized = new Error(
          `MCP server "${this.name}" sent a message of more than ${MCP_MESSAGE_BYTES} bytes; it is not read`,
        );
    };
    try {
      await client.connect(this.transport(lib));
    } catch (e) {
      // Nothing to retry until the operator logs in; the login is seen on the next use (the file is re-read).
      if (e instanceof McpLoginRequiredError) throw e;
      this.retryAt = Date.now() + BACKOFF_MS[Math.min(this.failures, BACKOFF_MS.length - 1)]!;
      this.failures++;
      throw this.oversized ?? new Error(`could not connect to MCP server "${this.name}": ${(e as Error).message}`);
    }
    this.failures = 0;
    this.retryAt = 0;
    this.client = client;
    return client;
  }

  private transport({ StdioClientTransport, StreamableHTTPClientTransport }: McpClientSdk) {
    const c = this.config;
    if ("url" in c) {
      let authProvider: McpOAuthProvider | undefined;
      if (c.oauth) {
        if (!this.configDir) throw new Error(`mcp.servers.${this.name}.oauth: no config dir to read the login from`);
        authProvider = new McpOAuthProvider(
          this.name,
          c.url,
          c.oauth,
          new McpOAuthStore(this.configDir),
          undefined,
          this.secrets,
        );
        // Checked here, without a request: the gateway never starts a browser flow itself.
        if (!authProvider.hasTokens()) throw new McpLoginRequiredError(this.name, "not logged in");
      }
      return new StreamableHTTPClientTransport(new URL(c.url), {
        requestInit: { headers: { ...(c.headers ?? {}) } },
        // One message is parsed whole on the gateway's thread: a server cannot send one past MCP_MESSAGE_BYTES.
        fetch: capMessages(this.name, authProvider ? serverHeadersOnlyToServer(c, authProvider.fetch) : fetch),
        ...(authProvider ? { authProvider } : {}),
      });
    }
    if (!c.allowProcess)
      throw new Error(`mcp.servers.${this.name} starts a process (${c.command}); set "allowProcess": true to allow it`);
    // The server gets PATH and what the config lists, not the gateway's environment (secrets).
    return new StdioClientTransport({
      command: c.command,
      args: [...(c.args ?? [])],
      env: { PATH: process.env.PATH ?? "", ...(c.env ?? {}) },
      ...(c.cwd ? { cwd: c.cwd } : {}),
      stderr: "pipe",
      maxBufferSize: MCP_MESSAGE_BYTES,
    });
  }
}

/**
 * The SDK adds the configured `headers` to every request the transport makes, OAuth discovery and
 * token requests included; those go to the authorization server, often another host. The headers
 * may carry secrets meant for the MCP server only, so they reach the server's origin only.
 */
function serverHeadersOnlyToServer(
  c: { readonly url: string; readonly headers?: Readonly<Record<string, string>> },
  inner: (url: string | URL, init?: RequestInit) => Promise<Response>,
): (url: string | URL, init?: RequestInit) => Promise<Response> {
  const names = new Set(Object.keys(c.headers ?? {}).map((h) => h.toLowerCase()));
  const origin = new URL(c.url).origin;
  return (url, init) => {
    if (!names.size || new URL(String(url)).origin === origin || !init?.headers) return inner(url, init);
    const headers = new Headers(init.headers);
    for (const n of names) headers.delete(n);
    return inner(url, { ...init, headers });
  };
}

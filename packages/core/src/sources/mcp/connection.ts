import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ToolContext } from "@openassistant/sdk";
import { McpLoginRequiredError, McpOAuthProvider, type McpOAuthConfig } from "./oauth.ts";
import { McpOAuthStore } from "./oauth-store.ts";
import type { SecretSink } from "../../receipts/secret-registry.ts";
import { OffThreadListings, type StdioTransportInternals } from "./listing-off-thread.ts";
import { capMessages, MCP_MESSAGE_BYTES } from "./message-cap.ts";
import { boundedOutputValidator } from "./output-validator.ts";
import { toolResultValue } from "./results.ts";
import { StderrTail } from "./stderr-tail.ts";

/** Start-up time a server gets by default: a first `npx -y` run downloads the package before it answers. */
export const DEFAULT_MCP_STARTUP_SECONDS = 60;

export type McpServerConfig =
  | {
      readonly url: string;
      readonly headers?: Readonly<Record<string, string>>;
      /** Authorization code + PKCE; tokens from `openassistant mcp login <name>`. */
      readonly oauth?: McpOAuthConfig;
      /** Seconds to connect and initialize (default `DEFAULT_MCP_STARTUP_SECONDS`). */
      readonly startupTimeoutSeconds?: number;
    }
  | {
      readonly command: string;
      readonly args?: readonly string[];
      readonly env?: Readonly<Record<string, string>>;
      readonly cwd?: string;
      readonly allowProcess: boolean;
      /** Seconds from starting the process to its answer to `initialize` (default `DEFAULT_MCP_STARTUP_SECONDS`). */
      readonly startupTimeoutSeconds?: number;
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
    { deserializeMessage },
  ] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
    import("@modelcontextprotocol/sdk/shared/stdio.js"),
  ]);
  return {
    Client,
    StdioClientTransport,
    StreamableHTTPClientTransport,
    ToolListChangedNotificationSchema,
    deserializeMessage,
  };
}

const BACKOFF_MS = [1_000, 2_000, 5_000, 15_000, 60_000];
/** A call's own limit; progress reports restart it (a run's and the tool's limits still apply). */
const CALL_TIMEOUT_MS = 600_000;
/** JSON-RPC error code the SDK gives requests pending when the connection closed (ErrorCode.ConnectionClosed). */
const CONNECTION_CLOSED = -32000;
/** Resources, templates or prompts listed at most (a listing is data handed to the run). */
const LIST_LIMIT = 10_000;

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
  /** Tools that must be called as tasks (`execution.taskSupport: "required"`), from the last listing. */
  private taskTools = new Set<string>();
  /** What the current (or last) stdio process wrote to stderr. */
  private stderr: StderrTail | undefined;
  private readonly listeners = new Set<() => void>();
  /** Large `tools/list` answers over HTTP, parsed on the source worker. */
  private readonly listings: OffThreadListings;
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
  ) {
    this.listings = new OffThreadListings(name);
  }

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
        // A large page was parsed on the source worker: its tools come from there (listing-off-thread.ts).
        for (const tool of await this.listings.tools(page)) tools.push(tool);
        cursor = page.nextCursor;
      } while (cursor && tools.length < 10_000);
      // What the SDK's listTools keeps of each page (output validators, task support), for every tool listed.
      (client as unknown as { cacheToolMetadata(tools: Tool[]): void }).cacheToolMetadata(tools);
    } catch (error) {
      throw this.oversized ?? (await this.withStderr(error));
    }
    this.taskTools = new Set(tools.filter((t) => t.execution?.taskSupport === "required").map((t) => t.name));
    return tools;
  }

  /** What the server offers besides tools (read after connecting). */
  async capabilities(): Promise<{ resources: boolean; prompts: boolean }> {
    const caps = (await this.connect()).getServerCapabilities();
    return { resources: caps?.resources !== undefined, prompts: caps?.prompts !== undefined };
  }

  /**
   * Calls a tool and returns what the model gets (results.ts). Progress the server reports reaches
   * `ctx.progress` (a `progressToken` is sent; each report restarts the request's timeout); a tool
   * whose `execution.taskSupport` is "required" is called as a task and its result awaited.
   */
  async callTool(name: string, args: Record<string, unknown>, ctx?: ToolContext): Promise<unknown> {
    const client = await this.connect();
    const options: RequestOptions = {
      ...(ctx?.signal ? { signal: ctx.signal } : {}),
      timeout: CALL_TIMEOUT_MS,
      ...(ctx?.progress
        ? {
            onprogress: (p) => ctx.progress?.({ progress: p.progress, total: p.total, message: p.message }),
            resetTimeoutOnProgress: true,
          }
        : {}),
    };
    let result: CallToolResult;
    try {
      result = this.taskTools.has(name)
        ? await this.callAsTask(client, name, args, options, ctx)
        : ((await client.callTool({ name, arguments: args }, undefined, options)) as CallToolResult);
    } catch (error) {
      throw this.oversized ?? (await this.withStderr(error));
    }
    return toolResultValue(`${this.name}.${name}`, result);
  }

  /** `tools/call` as a task (the experimental tasks API of the SDK): waits for the task's result; its status messages are progress. */
  private async callAsTask(
    client: Client,
    name: string,
    args: Record<string, unknown>,
    options: RequestOptions,
    ctx?: ToolContext,
  ): Promise<CallToolResult> {
    let step = 0;
    for await (const m of client.experimental.tasks.callToolStream({ name, arguments: args }, undefined, {
      ...options,
      task: {},
    })) {
      if (m.type === "taskStatus" && m.task.statusMessage)
        ctx?.progress?.({ progress: ++step, message: m.task.statusMessage });
      if (m.type === "result") return m.result as CallToolResult;
      if (m.type === "error") throw m.error;
    }
    throw new Error(`${this.name}.${name}: the task ended without a result`);
  }

  /** Every resource the server lists (all pages, at most `LIST_LIMIT`). */
  async listResources(): Promise<unknown[]> {
    const client = await this.connect();
    return this.allPages(async (cursor) => {
      const page = await client.listResources(cursor ? { cursor } : {});
      return { items: page.resources, next: page.nextCursor };
    });
  }

  async listResourceTemplates(): Promise<unknown[]> {
    const client = await this.connect();
    return this.allPages(async (cursor) => {
      const page = await client.listResourceTemplates(cursor ? { cursor } : {});
      return { items: page.resourceTemplates, next: page.nextCursor };
    });
  }

  async readResource(uri: string, signal?: AbortSignal): Promise<unknown[]> {
    const client = await this.connect();
    try {
      return (await client.readResource({ uri }, { ...(signal ? { signal } : {}) })).contents;
    } catch (error) {
      throw this.oversized ?? (await this.withStderr(error));
    }
  }

  async listPrompts(): Promise<unknown[]> {
    const client = await this.connect();
    return this.allPages(async (cursor) => {
      const page = await client.listPrompts(cursor ? { cursor } : {});
      return { items: page.prompts, next: page.nextCursor };
    });
  }

  async getPrompt(name: string, args: Record<string, string>, signal?: AbortSignal): Promise<unknown> {
    const client = await this.connect();
    try {
      const { _meta: _m, ...prompt } = await client.getPrompt(
        { name, arguments: args },
        { ...(signal ? { signal } : {}) },
      );
      return prompt;
    } catch (error) {
      throw this.oversized ?? (await this.withStderr(error));
    }
  }

  private async allPages(page: (cursor?: string) => Promise<{ items: unknown[]; next?: string }>): Promise<unknown[]> {
    const all: unknown[] = [];
    let cursor: string | undefined;
    try {
      do {
        const p = await page(cursor);
        all.push(...p.items);
        cursor = p.next;
      } while (cursor && all.length < LIST_LIMIT);
    } catch (error) {
      throw this.oversized ?? (await this.withStderr(error));
    }
    return all.slice(0, LIST_LIMIT);
  }

  /** `error` with what a stdio server wrote to stderr, when it wrote anything (its last words, if the connection closed). */
  private async withStderr(error: unknown): Promise<Error> {
    const e = error instanceof Error ? error : new Error(String(error));
    if ((e as { code?: unknown }).code === CONNECTION_CLOSED) await this.stderr?.settled();
    const said = this.stderr?.read();
    if (!said) return e;
    return Object.assign(new Error(this.stderr!.explain(e.message)), { cause: e });
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
    const seconds = this.config.startupTimeoutSeconds ?? DEFAULT_MCP_STARTUP_SECONDS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const started = client.connect(this.transport(lib));
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new McpStartupTimeoutError(this.name, seconds)), seconds * 1000);
      });
      await Promise.race([started, late]);
    } catch (e) {
      // A process that did not answer in time is stopped, not left running beside the next attempt.
      if (e instanceof McpStartupTimeoutError) await client.close().catch(() => {});
      // Nothing to retry until the operator logs in; the login is seen on the next use (the file is re-read).
      if (e instanceof McpLoginRequiredError) throw e;
      this.retryAt = Date.now() + BACKOFF_MS[Math.min(this.failures, BACKOFF_MS.length - 1)]!;
      this.failures++;
      if (this.oversized) throw this.oversized;
      if (!(e instanceof McpStartupTimeoutError)) await this.stderr?.settled();
      const message =
        e instanceof McpStartupTimeoutError
          ? e.message
          : `could not connect to MCP server "${this.name}": ${(e as Error).message}`;
      throw Object.assign(new Error(this.stderr?.explain(message) ?? message), {
        ...(e instanceof McpStartupTimeoutError ? { hint: e.hint } : {}),
      });
    } finally {
      clearTimeout(timer);
    }
    this.failures = 0;
    this.retryAt = 0;
    this.client = client;
    return client;
  }

  private transport({ StdioClientTransport, StreamableHTTPClientTransport, deserializeMessage }: McpClientSdk) {
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
        // A large tools/list answer is parsed on the source worker, not here (listing-off-thread.ts).
        fetch: this.listings.fetch(
          capMessages(this.name, authProvider ? serverHeadersOnlyToServer(c, authProvider.fetch) : fetch),
        ),
        ...(authProvider ? { authProvider } : {}),
      });
    }
    if (!c.allowProcess)
      throw new Error(`mcp.servers.${this.name} starts a process (${c.command}); set "allowProcess": true to allow it`);
    // The server gets PATH and what the config lists, not the gateway's environment (secrets).
    const transport = new StdioClientTransport({
      command: c.command,
      args: [...(c.args ?? [])],
      env: { PATH: process.env.PATH ?? "", ...(c.env ?? {}) },
      ...(c.cwd ? { cwd: c.cwd } : {}),
      stderr: "pipe",
      maxBufferSize: MCP_MESSAGE_BYTES,
    });
    // A large tools/list line is parsed on the source worker, not here (listing-off-thread.ts).
    this.listings.stdio(transport as unknown as StdioTransportInternals, MCP_MESSAGE_BYTES, deserializeMessage);
    const tail = new StderrTail(Object.values(c.env ?? {}));
    this.stderr = tail;
    transport.stderr?.on("data", (chunk: Buffer | string) => tail.push(String(chunk)));
    transport.stderr?.on("end", () => tail.end());
    transport.stderr?.on("close", () => tail.end());
    return transport;
  }
}

/** A server that did not answer `initialize` within its start-up time; `hint` says which key to raise. */
export class McpStartupTimeoutError extends Error {
  readonly hint: string;
  constructor(server: string, seconds: number) {
    super(`MCP server "${server}" did not start within ${seconds} s (no answer to initialize)`);
    this.hint = `A first \`npx -y\` run downloads the package before the server answers: raise mcp.servers.${server}.startupTimeoutSeconds in the config (now ${seconds}), or run the command once by hand to see what it does. The other tools still load.`;
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

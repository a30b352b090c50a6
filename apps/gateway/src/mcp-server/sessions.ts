import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { readRequestBody } from "@modelcontextprotocol/sdk/server/requestBody.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  isInitializeRequest,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { cutText } from "@openassistant/core/text";
import { type CallOutcome, type CodeModeRunner, newRunId } from "@openassistant/core/codemode";
import type { ToolTree } from "@openassistant/sdk";
import type { McpServerSettings } from "../settings.ts";
import { jsonRpcError } from "./responses.ts";
import type { McpClientToken, McpTokens } from "./tokens.ts";
import { callResult, callSnippet, listedTool, visibleTools } from "./tools.ts";

/** While a call waits for an operator, a progress notification this often (when the client sent a progress token). */
const APPROVAL_PROGRESS_MS = 15_000;
/** How often sessions are checked against the token file when no request comes. */
const REVOKED_SWEEP_MS = 5_000;

interface Session {
  readonly id: string;
  /** The client whose token opened the session; updated from the token file on each request. */
  client: McpClientToken;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: Server;
  /** Aborted when the session ends: its calls stop (a call waiting for approval is denied). */
  readonly ended: AbortController;
  calls: number;
  lastUsed: number;
}

interface SessionDeps {
  readonly settings: McpServerSettings;
  readonly tokens: McpTokens;
  readonly tools: () => ToolTree;
  readonly runner: Pick<CodeModeRunner, "runPromise">;
  /** The gateway's redactor: tool descriptions pass it (results and errors pass the runner's, the same one). */
  readonly redact: (text: string) => string;
  /** Each call's outcome as it settles (the gateway announces it as `call.settled`). */
  readonly onCall?: (runId: string, outcome: CallOutcome) => void;
  readonly log: (line: string) => void;
}

/**
 * The MCP sessions (streamable HTTP): one SDK `Server` and transport per session, made by an
 * `initialize` POST without a session id; the transport answers every later request of it (POST
 * messages, GET stream, DELETE to end it). At most `maxSessions` live at once: a new one takes the
 * place of the least recently used idle one, or is refused (503) when every session has a call running.
 */
export function createSessions(deps: SessionDeps) {
  const { settings } = deps;
  const byId = new Map<string, Session>();
  /** Sessions being opened (their `initialize` in progress): they count against the limit too. */
  let opening = 0;
  const stopping = new AbortController();

  function end(session: Session, reason: string): void {
    byId.delete(session.id);
    session.ended.abort(reason);
    void session.server.close().catch(() => undefined);
  }

  /** Sessions of revoked tokens end (their client can no longer reach them anyway). */
  function endRevoked(): void {
    const live = new Set(deps.tokens.list().map((c) => c.sha256));
    for (const s of [...byId.values()]) if (!live.has(s.client.sha256)) end(s, "the client's token was revoked");
  }

  function makeRoom(): boolean {
    if (byId.size + opening < settings.maxSessions) return true;
    let oldest: Session | undefined;
    for (const s of byId.values()) if (s.calls === 0 && (!oldest || s.lastUsed < oldest.lastUsed)) oldest = s;
    if (!oldest) return false;
    end(oldest, "ended to make room for a new session (mcpServer.maxSessions)");
    return true;
  }

  function build(client: McpClientToken): Session {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      maxRequestBodySize: settings.maxRequestBytes,
      onsessioninitialized: (id) => {
        byId.set(id, session);
      },
      onsessionclosed: (id) => {
        const s = byId.get(id);
        if (s) end(s, "the client ended the session");
      },
    });
    const server = new Server(
      { name: "openassistant", version: "0.1.0" },
      {
        capabilities: { tools: { listChanged: true } },
        instructions:
          "The tools of an OpenAssistant gateway. A call to a tool that needs approval waits for an operator's decision; a denied call returns an error saying who denied it and why.",
      },
    );
    const session: Session = {
      get id() {
        return transport.sessionId ?? "";
      },
      client,
      transport,
      server,
      ended: new AbortController(),
      calls: 0,
      lastUsed: Date.now(),
    };
    registerHandlers(session, deps, stopping.signal);
    transport.onclose = () => {
      if (byId.get(session.id) === session) end(session, "the session's transport closed");
    };
    return session;
  }

  // A token revoked while its client is idle ends the client's sessions within this interval too.
  const sweep = setInterval(() => {
    try {
      endRevoked();
    } catch (e) {
      deps.log(`mcp server: reading the client tokens failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }, REVOKED_SWEEP_MS);
  sweep.unref();

  return {
    endRevoked,
    /** The session `id` of `client`; undefined when it does not exist or another client opened it. */
    find(id: string, client: McpClientToken): { handle(req: Request): Promise<Response> } | undefined {
      const session = byId.get(id);
      if (!session || session.client.name !== client.name || session.client.sha256 !== client.sha256) return undefined;
      session.client = client;
      return {
        handle: (req) => {
          session.lastUsed = Date.now();
          return session.transport.handleRequest(req);
        },
      };
    },
    /** A POST without a session id: only an `initialize` opens a session. */
    async open(req: Request, client: McpClientToken): Promise<Response> {
      const read = await readRequestBody(req, settings.maxRequestBytes);
      if (read.tooLarge)
        return jsonRpcError(
          413,
          -32600,
          `request body over mcpServer.maxRequestBytes (${settings.maxRequestBytes} bytes)`,
        );
      let body: unknown;
      try {
        body = JSON.parse(read.text);
      } catch {
        return jsonRpcError(400, -32700, "the request body is not JSON");
      }
      if (!isInitializeRequest(body))
        return jsonRpcError(400, -32000, "no mcp-session-id header; send initialize first to open a session");
      if (!makeRoom())
        return jsonRpcError(
          503,
          -32000,
          `every MCP session (mcpServer.maxSessions = ${settings.maxSessions}) has a call running; try again when one ends`,
        );
      const session = build(client);
      opening++;
      try {
        await session.server.connect(session.transport);
        return await session.transport.handleRequest(req, { parsedBody: body });
      } finally {
        opening--;
      }
    },
    toolsChanged(): void {
      for (const s of byId.values()) void s.server.sendToolListChanged().catch(() => undefined);
    },
    async close(): Promise<void> {
      clearInterval(sweep);
      stopping.abort("the gateway is shutting down");
      for (const s of [...byId.values()]) end(s, "the gateway is shutting down");
    },
  };
}

function registerHandlers(session: Session, deps: SessionDeps, stopping: AbortSignal): void {
  const visible = () => visibleTools(deps.tools(), deps.settings.tools, session.client.tools);
  session.server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...visible()].map(([path, definition]) => listedTool(path, definition, deps.redact)),
  }));
  session.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const path = request.params.name;
    if (!visible().has(path))
      throw new McpError(
        ErrorCode.InvalidParams,
        `unknown tool "${cutText(path, 200)}": tools/list names the tools this client may call`,
      );
    const client = session.client.name;
    const progressToken = request.params._meta?.progressToken;
    let progress = 0;
    let timer: ReturnType<typeof setInterval> | undefined;
    const tellWaiting = () =>
      void extra
        .sendNotification({
          method: "notifications/progress",
          params: {
            progressToken: progressToken!,
            progress: ++progress,
            message: `waiting for an operator's approval of ${path}`,
          },
        })
        .catch(() => undefined);
    const runId = newRunId();
    const onCall = deps.onCall;
    session.calls++;
    try {
      const run = await deps.runner.runPromise(
        callSnippet(client, path, JSON.stringify(request.params.arguments ?? {})),
        {
          // Receipts and approval cards name the client: the session is `mcp:<client>:<session id>`.
          sessionId: `mcp:${client}:${session.id}`,
          requestedBy: `mcp:${client}`,
          runId,
          ...(onCall ? { onCall: (outcome: CallOutcome) => onCall(runId, outcome) } : {}),
          signal: AbortSignal.any([extra.signal, session.ended.signal, stopping]),
          ...(progressToken === undefined
            ? {}
            : {
                onApprovalWait: (waiting: boolean) => {
                  clearInterval(timer);
                  if (!waiting) return;
                  tellWaiting();
                  timer = setInterval(tellWaiting, APPROVAL_PROGRESS_MS);
                },
              }),
        },
      );
      return callResult(path, run);
    } finally {
      clearInterval(timer);
      session.calls--;
      session.lastUsed = Date.now();
    }
  });
}

import type { ToolTree } from "@openassistant/sdk";
import type { CallOutcome, CodeModeRunner } from "@openassistant/core/codemode";
import type { McpServerSettings } from "../settings.ts";
import { jsonRpcError, unauthorized } from "./responses.ts";
import { createSessions } from "./sessions.ts";
import type { McpTokens } from "./tokens.ts";

interface McpServerOptions {
  readonly settings: McpServerSettings;
  readonly tokens: McpTokens;
  /** The tools now (a reload is picked up by the next listing and call). */
  readonly tools: () => ToolTree;
  /** Runs each call's one-line snippet: the model's invocation path (validation, hooks, policy, approval, receipts). */
  readonly runner: Pick<CodeModeRunner, "runPromise">;
  /** The gateway's redactor: tool descriptions pass it (results and errors pass the runner's, the same one). */
  readonly redact: (text: string) => string;
  /** Each call's outcome as it settles (the gateway announces it as `call.settled`). */
  readonly onCall?: (runId: string, outcome: CallOutcome) => void;
  readonly log: (line: string) => void;
}

export interface McpServer {
  /** `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  readonly port: number;
  /** Tells every session the tool list changed (after a reload). */
  toolsChanged(): void;
  close(): Promise<void>;
}

/** The MCP endpoint's path; everything else is 404. */
const MCP_PATH = "/mcp";

/**
 * The gateway's tools as an MCP server (streamable HTTP, MCP 2025-11-25 transport): every request
 * needs a client token (`tokens.ts`), a session belongs to the client whose token opened it, and a
 * call runs through the runner like a model's. The gateway imports this file (and the MCP SDK)
 * only when `mcpServer.enabled`.
 */
export function startMcpServer(options: McpServerOptions): McpServer {
  const sessions = createSessions(options);
  const { settings } = options;
  const server = listen(
    settings,
    (req) => handle(req),
    options.log,
    () => void sessions.close(),
  );

  async function handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    if (url.pathname !== MCP_PATH)
      return jsonRpcError(404, -32601, `no route ${url.pathname}; the MCP endpoint is ${MCP_PATH}`);
    // MCP transports: servers must validate Origin against DNS rebinding; a page elsewhere never gets in.
    if (!originAllowed(req.headers.get("origin"))) return jsonRpcError(403, -32600, "forbidden origin");
    // A revoked client's sessions end (and their calls stop) before anything else is answered.
    sessions.endRevoked();
    const client = options.tokens.clientFor(req.headers.get("authorization"));
    if (!client) return unauthorized();
    const id = req.headers.get("mcp-session-id");
    if (id) {
      const session = sessions.find(id, client);
      // Another client's session is as unknown as an ended one (the client starts a new one: spec).
      if (!session) return jsonRpcError(404, -32001, "session not found; initialize a new one");
      return session.handle(req);
    }
    if (req.method !== "POST")
      return jsonRpcError(400, -32000, "no mcp-session-id header; initialize a session with a POST first");
    return sessions.open(req, client);
  }

  options.log(`MCP server listening on http://${urlHost(settings.host)}:${server.port}${MCP_PATH}`);
  return {
    url: `http://${urlHost(settings.host)}:${server.port}${MCP_PATH}`,
    port: server.port!,
    toolsChanged: () => sessions.toolsChanged(),
    async close() {
      await sessions.close();
      await server.stop(true);
    },
  };
}

/** The MCP server's listener; a port in use is an error naming the config key to change. */
function listen(
  settings: McpServerSettings,
  handle: (req: Request) => Promise<Response>,
  log: (line: string) => void,
  undo: () => void,
): ReturnType<typeof Bun.serve> {
  try {
    return Bun.serve({
      hostname: settings.host,
      port: settings.port,
      // A call waiting for an operator's approval keeps its response stream open (the SDK sends keep-alives).
      // Bodies are bounded where they are read: `sessions.open` and the session's transport stop at
      // mcpServer.maxRequestBytes (413), by the declared length or while streaming.
      idleTimeout: 0,
      async fetch(req) {
        try {
          return await handle(req);
        } catch (e) {
          log(`mcp server: ${req.method} failed: ${e instanceof Error ? e.message : String(e)}`);
          return jsonRpcError(500, -32603, "internal error (see the gateway's log)");
        }
      },
    });
  } catch (e) {
    undo();
    throw new Error(
      `mcpServer: cannot listen on ${settings.host}:${settings.port} (${e instanceof Error ? e.message : String(e)}); set mcpServer.port to a free port (0 picks one) or stop what uses it`,
    );
  }
}

/** No Origin (a non-browser client) or a loopback one. */
function originAllowed(origin: string | null): boolean {
  if (origin === null) return true;
  try {
    const host = new URL(origin).hostname;
    return host === "localhost" || host === "127.0.0.1" || host === "[::1]";
  } catch {
    return false;
  }
}

function urlHost(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}

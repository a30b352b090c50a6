import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";

/**
 * A real MCP server (the SDK's `McpServer`) over streamable HTTP on 127.0.0.1, one session per
 * client, for tests of the gateway's MCP client. `setup` registers tools on each new session's
 * server; `servers` lets a test change tools later (the SDK then sends `tools/list_changed`).
 */
export interface TestMcpHttpServer {
  readonly url: string;
  readonly servers: McpServer[];
  /** Headers of every request received. */
  readonly headers: Array<Record<string, string>>;
  close(): Promise<void>;
}

export async function startMcpHttpServer(
  setup: (server: McpServer) => void,
  options: {
    requireHeader?: [string, string];
    /** Runs first for every request: a Response answers it (e.g. a 401), undefined passes it on to MCP. */
    guard?: (req: Request) => Response | undefined;
  } = {},
): Promise<TestMcpHttpServer> {
  const transports = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const servers: McpServer[] = [];
  const headers: Array<Record<string, string>> = [];
  const http = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      headers.push(Object.fromEntries(req.headers));
      const denied = options.guard?.(req);
      if (denied) return denied;
      if (options.requireHeader && req.headers.get(options.requireHeader[0]) !== options.requireHeader[1])
        return new Response("unauthorized", { status: 401 });
      const sessionId = req.headers.get("mcp-session-id");
      let transport = sessionId ? transports.get(sessionId) : undefined;
      if (!transport) {
        if (sessionId)
          return Response.json(
            { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null },
            { status: 404 },
          );
        const t = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => crypto.randomUUID(),
          onsessioninitialized: (id) => void transports.set(id, t),
        });
        const server = new McpServer(
          { name: "test-mcp", version: "1.0.0" },
          { capabilities: { tools: { listChanged: true } } },
        );
        setup(server);
        servers.push(server);
        await server.connect(t);
        transport = t;
      }
      return transport.handleRequest(req);
    },
  });
  return {
    url: `http://127.0.0.1:${http.port}/mcp`,
    servers,
    headers,
    close: async () => {
      for (const s of servers) await s.close().catch(() => {});
      await http.stop(true);
    },
  };
}

/** A JSON-RPC error as the HTTP answer to a request the MCP transport never sees. */
export function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** 401: no token, or one that is not (or no longer) a client's. Says how to get one, never which part was wrong. */
export function unauthorized(): Response {
  const response = jsonRpcError(
    401,
    -32001,
    "missing, wrong or revoked bearer token: send Authorization: Bearer <token> made by `openassistant mcp-server token create <name>`",
  );
  response.headers.set("www-authenticate", 'Bearer realm="openassistant-mcp"');
  return response;
}

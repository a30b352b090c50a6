import { createHash, randomBytes } from "node:crypto";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { startMcpHttpServer, type TestMcpHttpServer } from "./http-server.ts";

/**
 * An OAuth-protected MCP server for tests: the SDK's `McpServer` over streamable HTTP on
 * 127.0.0.1 (the resource server) plus a separate authorization server on its own port, as the
 * MCP authorization spec describes them
 * (https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization).
 *
 * As strict as a real one, each rule citing its RFC:
 * - the resource server answers 401 with `WWW-Authenticate: Bearer resource_metadata=…` (RFC 9728 §5.1,
 *   RFC 6750 §3) and publishes its metadata at `/.well-known/oauth-protected-resource/mcp` (RFC 9728 §3);
 * - the authorization server publishes RFC 8414 metadata, registers clients dynamically (RFC 7591),
 *   requires PKCE S256 on every authorization request (RFC 7636 §4.3; MCP spec "Authorization Code
 *   Protection") and a `resource` equal to the MCP server's URL (RFC 8707 §2; MCP spec "Resource
 *   Parameter Implementation"), redirects only to a registered redirect URI (RFC 6749 §3.1.2.2,
 *   §4.1.2.1), checks the code verifier (RFC 7636 §4.6), codes are single-use and short-lived
 *   (RFC 6749 §4.1.2), refresh tokens rotate and a used one is refused (OAuth 2.1 draft §4.3.1;
 *   RFC 9700 §4.14.2), errors are RFC 6749 §5.2 JSON, token responses are `no-store` (RFC 6749 §5.1);
 * - access tokens are accepted only for the resource they were issued for (RFC 8707 §2; MCP spec
 *   "Token Audience Binding") and only until they expire (RFC 6750 §3.1 `invalid_token`).
 *
 * `/authorize` approves at once (the test plays the browser: it fetches the URL and follows the
 * 302 to the loopback redirect URI).
 */
export interface TestOAuthMcpServer {
  /** The MCP endpoint (the protected resource). */
  readonly url: string;
  /** The authorization server's issuer URL. */
  readonly issuer: string;
  readonly mcp: TestMcpHttpServer;
  /** Every request to the authorization server: method, path, form or JSON body, headers (for assertions). */
  readonly asRequests: Array<{
    method: string;
    path: string;
    body: Record<string, unknown>;
    headers: Record<string, string>;
  }>;
  /** Every access and refresh token ever issued (tests check none of them reaches a log or receipt). */
  readonly issued: string[];
  /** Access tokens presented to the MCP endpoint, in order. */
  readonly presented: string[];
  /** Makes every access token issued so far expired (the next MCP request gets 401 invalid_token). */
  expireAccessTokens(): void;
  /** Revokes every refresh token issued so far (RFC 7009), as an operator revoking the grant would. */
  revokeRefreshTokens(): void;
  close(): Promise<void>;
}

interface Client {
  client_id: string;
  client_secret?: string;
  redirect_uris: string[];
  token_endpoint_auth_method: string;
}
interface Grant {
  clientId: string;
  scope: string;
  resource: string;
}

const CODE_TTL_MS = 60_000;

export async function startOAuthMcpServer(
  setup: (server: McpServer) => void,
  options: { accessTokenTtlSeconds?: number; scopes?: string[] } = {},
): Promise<TestOAuthMcpServer> {
  const ttl = options.accessTokenTtlSeconds ?? 3600;
  const scopesSupported = options.scopes ?? ["mcp:tools"];
  const clients = new Map<string, Client>();
  const codes = new Map<string, Grant & { redirectUri: string; challenge: string; expiresAt: number; used: boolean }>();
  const access = new Map<string, Grant & { expiresAt: number }>();
  const refresh = new Map<string, Grant & { active: boolean }>();
  const asRequests: TestOAuthMcpServer["asRequests"] = [];
  const issued: string[] = [];
  const presented: string[] = [];
  let resourceUrl = "";

  const token = (prefix: string) => {
    const t = `${prefix}_${randomBytes(24).toString("base64url")}`;
    issued.push(t);
    return t;
  };
  // RFC 6749 §5.2: error responses are JSON with `error` (and optionally `error_description`).
  const oauthError = (error: string, description: string, status = 400) =>
    Response.json({ error, error_description: description }, { status, headers: { "cache-control": "no-store" } });

  function issueTokens(grant: Grant): Response {
    const accessToken = token("at");
    const refreshToken = token("rt");
    access.set(accessToken, { ...grant, expiresAt: Date.now() + ttl * 1000 });
    refresh.set(refreshToken, { ...grant, active: true });
    // RFC 6749 §5.1: the token response, with Cache-Control: no-store.
    return Response.json(
      {
        access_token: accessToken,
        token_type: "Bearer",
        expires_in: ttl,
        refresh_token: refreshToken,
        scope: grant.scope,
      },
      { headers: { "cache-control": "no-store", pragma: "no-cache" } },
    );
  }

  /** RFC 6749 §2.3.1 / RFC 7591 §2: the client authenticates as it registered (public clients send client_id). */
  function authenticateClient(req: Request, form: URLSearchParams): Client | Response {
    let id = form.get("client_id");
    let secret = form.get("client_secret");
    const basic = req.headers.get("authorization");
    if (basic?.startsWith("Basic ")) {
      const [u, p] = Buffer.from(basic.slice(6), "base64").toString().split(":");
      id = decodeURIComponent(u ?? "");
      secret = decodeURIComponent(p ?? "");
    }
    const client = id ? clients.get(id) : undefined;
    if (!client) return oauthError("invalid_client", "unknown client_id", 401);
    if (client.token_endpoint_auth_method !== "none" && secret !== client.client_secret)
      return oauthError("invalid_client", "client authentication failed", 401);
    return client;
  }

  let issuer = "";
  const as = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req): Promise<Response> {
      const url = new URL(req.url);
      let body: Record<string, unknown> = {};
      if (req.method === "POST") {
        const type = req.headers.get("content-type") ?? "";
        if (url.pathname === "/register") {
          // RFC 7591 §3.1: the registration request is JSON.
          if (!type.startsWith("application/json"))
            return oauthError("invalid_client_metadata", "registration requests are application/json");
          body = (await req.json().catch(() => ({}))) as Record<string, unknown>;
        } else {
          // RFC 6749 §3.2 / RFC 7009 §2.1: token and revocation requests are form-encoded.
          if (!type.startsWith("application/x-www-form-urlencoded"))
            return oauthError("invalid_request", "use application/x-www-form-urlencoded");
          body = Object.fromEntries(new URLSearchParams(await req.text()));
        }
      } else body = Object.fromEntries(url.searchParams);
      asRequests.push({ method: req.method, path: url.pathname, body, headers: Object.fromEntries(req.headers) });

      if (url.pathname === "/.well-known/oauth-authorization-server" && req.method === "GET") {
        // RFC 8414 §2, §3.2.
        return Response.json({
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          registration_endpoint: `${issuer}/register`,
          revocation_endpoint: `${issuer}/revoke`,
          scopes_supported: scopesSupported,
          response_types_supported: ["code"],
          grant_types_supported: ["authorization_code", "refresh_token"],
          token_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
          code_challenge_methods_supported: ["S256"],
        });
      }

      if (url.pathname === "/register" && req.method === "POST") {
        // RFC 7591 §2, §3.2.1, §3.2.2.
        const uris = body.redirect_uris;
        if (!Array.isArray(uris) || uris.length === 0 || !uris.every((u) => typeof u === "string" && URL.canParse(u)))
          return oauthError("invalid_redirect_uri", "redirect_uris must be a non-empty array of absolute URLs");
        // RFC 8252 §7.3 / §8.3: loopback redirects use http://127.0.0.1, never "localhost" or remote http.
        for (const u of uris as string[]) {
          const p = new URL(u);
          if (p.protocol !== "https:" && p.hostname !== "127.0.0.1" && p.hostname !== "[::1]")
            return oauthError("invalid_redirect_uri", `${u}: plain http is only allowed for a loopback IP`);
        }
        const method = (body.token_endpoint_auth_method as string | undefined) ?? "client_secret_basic";
        if (!["none", "client_secret_post", "client_secret_basic"].includes(method))
          return oauthError("invalid_client_metadata", `token_endpoint_auth_method ${method} is not supported`);
        const client: Client = {
          client_id: `client_${randomBytes(8).toString("hex")}`,
          redirect_uris: uris as string[],
          token_endpoint_auth_method: method,
          ...(method === "none" ? {} : { client_secret: randomBytes(16).toString("hex") }),
        };
        clients.set(client.client_id, client);
        return Response.json(
          { ...body, ...client, client_id_issued_at: Math.floor(Date.now() / 1000) },
          { status: 201, headers: { "cache-control": "no-store" } },
        );
      }

      if (url.pathname === "/authorize" && req.method === "GET") {
        const q = url.searchParams;
        const client = clients.get(q.get("client_id") ?? "");
        const redirectUri = q.get("redirect_uri") ?? "";
        // RFC 6749 §4.1.2.1: with an unknown client or an unregistered redirect URI, never redirect.
        if (!client) return new Response("unknown client_id", { status: 400 });
        if (!client.redirect_uris.includes(redirectUri))
          return new Response("redirect_uri is not registered for this client", { status: 400 });
        const back = (params: Record<string, string>) => {
          const target = new URL(redirectUri);
          for (const [k, v] of Object.entries(params)) target.searchParams.set(k, v);
          const state = q.get("state");
          if (state !== null) target.searchParams.set("state", state);
          return Response.redirect(target.toString(), 302);
        };
        if (q.get("response_type") !== "code")
          return back({ error: "unsupported_response_type", error_description: "response_type must be code" });
        // RFC 7636 §4.3 + MCP spec: PKCE with S256 is mandatory.
        const challenge = q.get("code_challenge");
        if (!challenge || !/^[A-Za-z0-9_-]{43}$/.test(challenge))
          return back({ error: "invalid_request", error_description: "code_challenge (S256) is required" });
        if (q.get("code_challenge_method") !== "S256")
          return back({ error: "invalid_request", error_description: "code_challenge_method must be S256" });
        // RFC 8707 §2 + MCP spec: the resource the token is for, exactly the MCP server's URL.
        const resource = q.get("resource");
        if (resource !== resourceUrl)
          return back({ error: "invalid_target", error_description: `resource must be ${resourceUrl}` });
        const scope = q.get("scope") ?? scopesSupported.join(" ");
        if (!scope.split(" ").every((s) => scopesSupported.includes(s) || s === "offline_access"))
          return back({ error: "invalid_scope", error_description: `unknown scope in "${scope}"` });
        const code = randomBytes(16).toString("base64url");
        codes.set(code, {
          clientId: client.client_id,
          redirectUri,
          challenge,
          scope,
          resource,
          expiresAt: Date.now() + CODE_TTL_MS,
          used: false,
        });
        return back({ code });
      }

      if (url.pathname === "/token" && req.method === "POST") {
        const form = new URLSearchParams(body as Record<string, string>);
        const client = authenticateClient(req, form);
        if (client instanceof Response) return client;
        const grantType = form.get("grant_type");
        if (grantType === "authorization_code") {
          const code = codes.get(form.get("code") ?? "");
          if (!code || code.clientId !== client.client_id)
            return oauthError("invalid_grant", "unknown authorization code");
          if (code.used) {
            // RFC 6749 §4.1.2: a code used twice is refused (and the grant should be revoked).
            for (const r of refresh.values()) if (r.clientId === client.client_id) r.active = false;
            return oauthError("invalid_grant", "authorization code already used");
          }
          code.used = true;
          if (Date.now() > code.expiresAt) return oauthError("invalid_grant", "authorization code expired");
          // RFC 6749 §4.1.3: redirect_uri must be identical to the authorization request's.
          if (form.get("redirect_uri") !== code.redirectUri)
            return oauthError("invalid_grant", "redirect_uri does not match the authorization request");
          // RFC 7636 §4.1 (43–128 unreserved characters) and §4.6 (S256 comparison).
          const verifier = form.get("code_verifier") ?? "";
          if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier))
            return oauthError("invalid_request", "code_verifier must be 43-128 unreserved characters");
          if (createHash("sha256").update(verifier).digest("base64url") !== code.challenge)
            return oauthError("invalid_grant", "PKCE verification failed: code_verifier does not match");
          // RFC 8707 §2.2: a resource on the token request must be the one authorized.
          const resource = form.get("resource");
          if (resource !== null && resource !== code.resource)
            return oauthError("invalid_target", "resource differs from the authorization request");
          return issueTokens({ clientId: client.client_id, scope: code.scope, resource: code.resource });
        }
        if (grantType === "refresh_token") {
          const rt = form.get("refresh_token") ?? "";
          const grant = refresh.get(rt);
          if (!grant || grant.clientId !== client.client_id)
            return oauthError("invalid_grant", "unknown refresh token");
          if (!grant.active) return oauthError("invalid_grant", "refresh token was revoked or already used");
          const resource = form.get("resource");
          if (resource !== null && resource !== grant.resource)
            return oauthError("invalid_target", "resource differs from the original grant");
          // Rotation (OAuth 2.1 §4.3.1, RFC 9700 §4.14.2): the old refresh token stops working.
          grant.active = false;
          return issueTokens({ clientId: grant.clientId, scope: grant.scope, resource: grant.resource });
        }
        return oauthError("unsupported_grant_type", `grant_type ${grantType} is not supported`);
      }

      if (url.pathname === "/revoke" && req.method === "POST") {
        // RFC 7009 §2.2: 200 whether or not the token was known.
        const t = String(body.token ?? "");
        const r = refresh.get(t);
        if (r) r.active = false;
        access.delete(t);
        return new Response(null, { status: 200 });
      }
      return new Response("not found", { status: 404 });
    },
  });
  issuer = `http://127.0.0.1:${as.port}`;

  let prmUrl = "";
  const mcp = await startMcpHttpServer(setup, {
    guard(req) {
      const url = new URL(req.url);
      // RFC 9728 §3.1: metadata at /.well-known/oauth-protected-resource + the resource's path.
      if (url.pathname === "/.well-known/oauth-protected-resource/mcp" && req.method === "GET")
        return Response.json({
          resource: resourceUrl,
          authorization_servers: [issuer],
          scopes_supported: scopesSupported,
          bearer_methods_supported: ["header"],
        });
      if (url.pathname !== "/mcp") return new Response("not found", { status: 404 });
      const challenge = (extra = "") =>
        new Response("unauthorized", {
          status: 401,
          headers: { "www-authenticate": `Bearer resource_metadata="${prmUrl}"${extra}` },
        });
      const auth = req.headers.get("authorization");
      // RFC 6750 §2.1: only the Authorization header (bearer_methods_supported: header).
      if (!auth?.startsWith("Bearer ")) return challenge();
      const presentedToken = auth.slice(7);
      presented.push(presentedToken);
      const grant = access.get(presentedToken);
      if (!grant) return challenge(', error="invalid_token", error_description="unknown token"');
      if (grant.resource !== resourceUrl)
        return challenge(', error="invalid_token", error_description="token is for another resource"');
      if (Date.now() >= grant.expiresAt)
        return challenge(', error="invalid_token", error_description="the access token expired"');
      return undefined;
    },
  });
  resourceUrl = mcp.url;
  prmUrl = `${new URL(mcp.url).origin}/.well-known/oauth-protected-resource/mcp`;

  return {
    url: mcp.url,
    issuer,
    mcp,
    asRequests,
    issued,
    presented,
    expireAccessTokens() {
      for (const a of access.values()) a.expiresAt = 0;
    },
    revokeRefreshTokens() {
      for (const r of refresh.values()) r.active = false;
    },
    close: async () => {
      await mcp.close();
      await as.stop(true);
    },
  };
}

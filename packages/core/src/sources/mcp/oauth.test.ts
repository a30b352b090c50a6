import { afterAll, afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, readFileSync, statSync } from "node:fs";
import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { startOAuthMcpServer, type TestOAuthMcpServer } from "@openassistant/testkit/mcp/oauth-server.ts";
import { ConfigError, loadConfig } from "../../config/index.ts";
import { loadTools } from "../../plugins/index.ts";
import { tempProject, toolSource } from "../../../test/plugin-fixtures.ts";
import { indexToolTree } from "../../tools/flatten.ts";
import { closeMcpConnections, mcpLogin, McpOAuthProvider, McpOAuthStore, mcpOAuthPath } from "./index.ts";

setDefaultTimeout(30_000);
afterAll(() => closeMcpConnections());

const ctx = () => ({ signal: new AbortController().signal, callId: "c1", log: console });
const servers: TestOAuthMcpServer[] = [];
afterEach(async () => {
  await closeMcpConnections();
  for (const s of servers.splice(0)) await s.close();
});

async function notesServer(): Promise<{ server: TestOAuthMcpServer; calls: string[] }> {
  const calls: string[] = [];
  const server = await startOAuthMcpServer((s) => {
    s.registerTool(
      "read-note",
      { description: "Read a note", inputSchema: { id: z.string() }, annotations: { readOnlyHint: true } },
      async ({ id }) => {
        calls.push(id);
        return { content: [{ type: "text", text: `note ${id}` }], structuredContent: { id, text: `note ${id}` } };
      },
    );
  });
  servers.push(server);
  return { server, calls };
}

/** The test is the browser: open the authorization URL (auto-approved), follow the 302 to the loopback. */
async function browser(url: string): Promise<void> {
  const r = await fetch(url, { redirect: "manual" });
  expect(r.status).toBe(302);
  const back = await fetch(r.headers.get("location")!);
  expect(back.status).toBe(200);
}

function project(url: string) {
  const p = tempProject({
    ".openassistant/config.json": JSON.stringify({ mcp: { servers: { notes: { url, oauth: {} } } } }),
  });
  return { ...p, opts: { ...p.opts, autoInstall: false } };
}

async function login(server: TestOAuthMcpServer, configDir: string): Promise<string[]> {
  const urls: string[] = [];
  await mcpLogin({
    name: "notes",
    serverUrl: server.url,
    oauth: {},
    configDir,
    openUrl: async (u) => {
      urls.push(u);
      // Another local process guessing at the loopback port is ignored; only this login's state counts.
      const forged = new URL(new URL(u).searchParams.get("redirect_uri")!);
      forged.search = new URLSearchParams({ code: "forged", state: "not-this-login" }).toString();
      expect((await fetch(forged)).status).toBe(400);
      // The redirect listener is on 127.0.0.1 only: another loopback address (so another interface) gets nothing.
      const elsewhere = await fetch(`http://127.0.0.2:${forged.port}/callback`).then(
        (r) => `answered ${r.status}`,
        (e: Error & { code?: string }) => e.code ?? e.message,
      );
      expect(elsewhere).toBe("ECONNREFUSED");
      await browser(u);
    },
  });
  return urls;
}

describe("MCP servers behind OAuth (authorization code + PKCE)", () => {
  test("login end to end: the tokens file is 0600, a tool call carries the token, no token in diagnostics", async () => {
    const { server, calls } = await notesServer();
    const p = project(server.url);
    const urls = await login(server, p.globalDir);

    const auth = new URL(urls[0]!);
    expect(auth.origin).toBe(server.issuer);
    expect(auth.searchParams.get("code_challenge_method")).toBe("S256");
    expect(auth.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(auth.searchParams.get("resource")).toBe(server.url);
    expect(server.asRequests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /.well-known/oauth-authorization-server",
      "POST /register",
      "GET /authorize",
      "POST /token",
    ]);

    const file = mcpOAuthPath(p.globalDir);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = new McpOAuthStore(p.globalDir).get("notes", server.url)!;
    expect(saved.tokens?.access_token).toBe(server.issued[0]!);

    const logs: string[] = [];
    const r = await loadTools({ ...p.opts, log: (_l, m, d) => logs.push(m, JSON.stringify(d)) });
    expect(r.diagnostics.filter((d) => d.level === "error")).toEqual([]);
    const read = indexToolTree(r.tree).get("notes.readNote")!;
    expect(await read.run(read.args.parse({ id: "n1" }), ctx())).toEqual({ id: "n1", text: "note n1" });
    expect(calls).toEqual(["n1"]);
    expect(server.presented.every((t) => t === saved.tokens!.access_token)).toBe(true);
    const text = JSON.stringify(r.diagnostics) + logs.join("\n");
    for (const t of server.issued) expect(text).not.toContain(t);
  });

  test("an expired access token is refreshed and the rotated refresh token is saved", async () => {
    const { server, calls } = await notesServer();
    const p = project(server.url);
    await login(server, p.globalDir);
    const store = new McpOAuthStore(p.globalDir);
    const before = store.get("notes", server.url)!.tokens!;

    const r = await loadTools(p.opts);
    const read = indexToolTree(r.tree).get("notes.readNote")!;
    server.expireAccessTokens();
    expect(await read.run(read.args.parse({ id: "n2" }), ctx())).toMatchObject({ id: "n2" });
    expect(calls).toEqual(["n2"]);

    const after = store.get("notes", server.url)!.tokens!;
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).toBeDefined();
    expect(after.refresh_token).not.toBe(before.refresh_token); // rotated, and the new one is on disk
    expect(server.asRequests.filter((x) => x.body.grant_type === "refresh_token")).toHaveLength(1);
    expect(statSync(mcpOAuthPath(p.globalDir)).mode & 0o777).toBe(0o600);

    // The old refresh token is dead at the server; the saved one works for the next refresh.
    server.expireAccessTokens();
    expect(await read.run(read.args.parse({ id: "n3" }), ctx())).toMatchObject({ id: "n3" });
  });

  test("every token and client secret is registered for redaction when read or obtained (a refresh's, at once)", () => {
    const dir = tempProject({}).globalDir;
    const registered: string[] = [];
    const sink = {
      add: (_source: string, values: Iterable<string | undefined | null>) =>
        void registered.push(...[...values].filter((v): v is string => Boolean(v))),
    };
    const store = new McpOAuthStore(dir);
    store.update("notes", "http://127.0.0.1:1/mcp", (e) => {
      e.client = { client_id: "registered", client_secret: "cs-from-registration" };
      e.tokens = { access_token: "at-saved", token_type: "Bearer", refresh_token: "rt-saved" };
    });
    const provider = new McpOAuthProvider("notes", "http://127.0.0.1:1/mcp", {}, store, undefined, sink);
    provider.clientInformation();
    provider.tokens();
    expect(registered).toEqual(["cs-from-registration", "at-saved", "rt-saved"]);
    // What a refresh obtains is registered as it is saved, before anything reads it back.
    provider.saveTokens({ access_token: "at-refreshed", token_type: "Bearer", refresh_token: "rt-refreshed" });
    expect(registered.slice(3)).toEqual(["at-refreshed", "rt-refreshed"]);
    // A client configured by hand: its secret is registered when the provider is made.
    new McpOAuthProvider(
      "other",
      "http://127.0.0.1:2/mcp",
      { clientId: "c", clientSecret: "cs-configured" },
      store,
      undefined,
      sink,
    );
    expect(registered.at(-1)).toBe("cs-configured");
  });

  test("configured headers reach the MCP server, never the authorization server", async () => {
    const { server } = await notesServer();
    const p = tempProject(
      {
        ".openassistant/config.json": JSON.stringify({
          mcp: { servers: { notes: { url: server.url, headers: { "x-tenant-key": "${TENANT_KEY}" }, oauth: {} } } },
        }),
      },
      { TENANT_KEY: "tenant-secret-123" },
    );
    await login(server, p.globalDir);
    const before = server.asRequests.length;
    server.expireAccessTokens();
    const r = await loadTools({ ...p.opts, autoInstall: false });
    expect(r.diagnostics.filter((d) => d.level === "error")).toEqual([]);
    const after = server.asRequests.slice(before);
    expect(after.map((x) => x.path)).toContain("/token"); // the refresh went to the authorization server
    expect(JSON.stringify(after)).not.toContain("tenant-secret-123");
    expect(server.mcp.headers.at(-1)?.["x-tenant-key"]).toBe("tenant-secret-123");
  });

  test("calls in parallel after expiry refresh once at a time; none fails and the saved login stays valid", async () => {
    const { server, calls } = await notesServer();
    const p = project(server.url);
    await login(server, p.globalDir);
    const r = await loadTools(p.opts);
    const read = indexToolTree(r.tree).get("notes.readNote")!;
    server.expireAccessTokens();
    const ids = ["p1", "p2", "p3", "p4"];
    await Promise.all(ids.map((id) => read.run(read.args.parse({ id }), ctx())));
    expect(calls.sort()).toEqual(ids);
    // What is on disk still works: a new connection refreshes with it.
    expect(new McpOAuthStore(p.globalDir).get("notes", server.url)?.tokens?.refresh_token).toBeDefined();
    await closeMcpConnections();
    server.expireAccessTokens();
    const again = await loadTools(p.opts);
    expect(again.diagnostics.filter((d) => d.level === "error")).toEqual([]);
  });

  test("a revoked refresh token: the call fails and the server becomes a 'run mcp login' diagnostic", async () => {
    const { server } = await notesServer();
    const p = project(server.url);
    await login(server, p.globalDir);
    const r = await loadTools(p.opts);
    const read = indexToolTree(r.tree).get("notes.readNote")!;
    server.expireAccessTokens();
    server.revokeRefreshTokens();
    await expect(read.run(read.args.parse({ id: "n4" }), ctx())).rejects.toThrow(
      'MCP server "notes" needs authorization (the authorization server refused the saved login): ' +
        "run `openassistant mcp login notes`",
    );
    // The refused tokens are gone from the file; the next load is a diagnostic, the loader lives.
    expect(new McpOAuthStore(p.globalDir).get("notes", server.url)!.tokens).toBeUndefined();
    await closeMcpConnections();
    const again = await loadTools(p.opts);
    const d = again.diagnostics.find((x) => x.id === "notes");
    expect(d?.level).toBe("error");
    expect(d?.message).toContain("run `openassistant mcp login notes`");

    // Logging in again brings the server back.
    await login(server, p.globalDir);
    await closeMcpConnections();
    const third = await loadTools(p.opts);
    expect(indexToolTree(third.tree).has("notes.readNote")).toBe(true);
  });

  test("a gateway starting with a revoked login: the server is a diagnostic, the other tools load", async () => {
    const { server } = await notesServer();
    const p = tempProject({
      ".openassistant/config.json": JSON.stringify({ mcp: { servers: { notes: { url: server.url, oauth: {} } } } }),
      ".openassistant/tools/hello.ts": toolSource("Hi"),
    });
    await login(server, p.globalDir);
    server.expireAccessTokens();
    server.revokeRefreshTokens();
    const r = await loadTools({ ...p.opts, autoInstall: false });
    expect(r.diagnostics.find((x) => x.id === "notes")?.message).toBe(
      'MCP server "notes" needs authorization (the authorization server refused the saved login): ' +
        "run `openassistant mcp login notes`",
    );
    expect(r.diagnostics.filter((d) => d.level === "error").map((d) => d.id)).toEqual(["notes"]);
    expect(indexToolTree(r.tree).has("hello")).toBe(true);
    expect(server.asRequests.filter((x) => x.path === "/register")).toHaveLength(1); // the login's, no other
  });

  test("never logged in: a diagnostic, and no request reaches the server or its authorization server", async () => {
    const { server } = await notesServer();
    const p = project(server.url);
    const r = await loadTools(p.opts);
    const d = r.diagnostics.find((x) => x.id === "notes")!;
    expect(d.message).toBe(
      'MCP server "notes" needs authorization (not logged in): run `openassistant mcp login notes`',
    );
    expect(d.hint).toBe("Run `openassistant mcp login notes` where the gateway runs, then /reload (or restart).");
    expect(d.source).toBe(`${p.ws}/config.json`); // at mcp.servers.notes
    expect(server.asRequests).toEqual([]);
    expect(server.mcp.headers).toEqual([]);
  });

  test("a tokens file other users can read is refused with the chmod to run", async () => {
    const { server } = await notesServer();
    const p = project(server.url);
    await login(server, p.globalDir);
    chmodSync(mcpOAuthPath(p.globalDir), 0o644);
    const r = await loadTools(p.opts);
    const d = r.diagnostics.find((x) => x.id === "notes");
    expect(d?.message).toContain(`Run: chmod 600 ${mcpOAuthPath(p.globalDir)}`);
    expect(readFileSync(mcpOAuthPath(p.globalDir), "utf8")).toContain("access_token"); // untouched
  });
});

describe("the fake authorization server is strict", () => {
  async function register(server: TestOAuthMcpServer, redirect: string): Promise<string> {
    const r = await fetch(`${server.issuer}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: [redirect], token_endpoint_auth_method: "none" }),
    });
    expect(r.status).toBe(201);
    return ((await r.json()) as { client_id: string }).client_id;
  }
  const redirect = "http://127.0.0.1:9/callback";
  const authorizeUrl = (server: TestOAuthMcpServer, clientId: string, challenge?: string) => {
    const u = new URL(`${server.issuer}/authorize`);
    u.searchParams.set("response_type", "code");
    u.searchParams.set("client_id", clientId);
    u.searchParams.set("redirect_uri", redirect);
    u.searchParams.set("resource", server.url);
    u.searchParams.set("state", "s1");
    if (challenge) {
      u.searchParams.set("code_challenge", challenge);
      u.searchParams.set("code_challenge_method", "S256");
    }
    return u;
  };

  test("a PKCE code verifier that does not match the challenge is refused (RFC 7636 §4.6)", async () => {
    const { server } = await notesServer();
    const clientId = await register(server, redirect);
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const r = await fetch(authorizeUrl(server, clientId, challenge), { redirect: "manual" });
    const code = new URL(r.headers.get("location")!).searchParams.get("code")!;
    const token = (v: string) =>
      fetch(`${server.issuer}/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code,
          code_verifier: v,
          redirect_uri: redirect,
          client_id: clientId,
        }),
      });
    const wrong = await token(randomBytes(32).toString("base64url"));
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: "invalid_grant" });
    // The code was consumed by the failed attempt: single use (RFC 6749 §4.1.2).
    const right = await token(verifier);
    expect(await right.json()).toMatchObject({
      error: "invalid_grant",
      error_description: "authorization code already used",
    });
  });

  test("no PKCE challenge, an unregistered redirect URI or another resource: refused", async () => {
    const { server } = await notesServer();
    const clientId = await register(server, redirect);
    const noPkce = await fetch(authorizeUrl(server, clientId), { redirect: "manual" });
    expect(new URL(noPkce.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");
    const other = authorizeUrl(server, clientId, "x".repeat(43));
    other.searchParams.set("redirect_uri", "http://127.0.0.1:10/callback");
    expect((await fetch(other, { redirect: "manual" })).status).toBe(400); // never redirected
    const resource = authorizeUrl(server, clientId, "x".repeat(43));
    resource.searchParams.set("resource", "http://127.0.0.1:1/other");
    const denied = await fetch(resource, { redirect: "manual" });
    expect(new URL(denied.headers.get("location")!).searchParams.get("error")).toBe("invalid_target");
  });
});

describe("mcp.servers.<name>.oauth in the config", () => {
  async function configError(servers: unknown): Promise<string> {
    const p = tempProject({ ".openassistant/config.json": JSON.stringify({ mcp: { servers } }) });
    try {
      await loadConfig({ cwd: p.root, env: { ...p.opts.env }, homeDir: p.home });
    } catch (e) {
      if (e instanceof ConfigError) return e.message;
      throw e;
    }
    throw new Error("expected a ConfigError");
  }

  test("a bad field is named with what to do", async () => {
    expect(await configError({ x: { url: "https://a.example/mcp", oauth: { redirectPort: 80 } } })).toContain(
      "must be a port from 1024 to 65535",
    );
    expect(await configError({ x: { url: "https://a.example/mcp", oauth: { clientSecret: "s" } } })).toContain(
      "needs oauth.clientId",
    );
    const both = await configError({
      x: { url: "https://a.example/mcp", headers: { Authorization: "Bearer t" }, oauth: {} },
    });
    expect(both).toContain("conflicts with oauth");
    expect(await configError({ x: { url: "https://a.example/mcp", oauth: { scope: "a" } } })).toContain("scope");
  });
});

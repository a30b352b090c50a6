import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { SecretSink } from "../../receipts/secret-registry.ts";
import { McpOAuthStore } from "./oauth-store.ts";

/** `mcp.servers.<name>.oauth`: authorization code + PKCE against the server's authorization server. */
export interface McpOAuthConfig {
  /** A client registered by hand; without it the login registers one (RFC 7591). */
  readonly clientId?: string;
  readonly clientSecret?: string;
  /** Scopes to ask for; default: what the server's metadata lists. */
  readonly scopes?: readonly string[];
  /** Loopback port for the redirect (http://127.0.0.1:<port>/callback); default: any free port. */
  readonly redirectPort?: number;
}

/** The server needs a (new) login; the gateway shows this as the server's diagnostic. */
export class McpLoginRequiredError extends Error {
  constructor(
    readonly server: string,
    reason: string,
  ) {
    super(`MCP server "${server}" needs authorization (${reason}): run \`openassistant mcp login ${server}\``);
    this.name = "McpLoginRequiredError";
  }

  /** What the operator does (the diagnostic's hint). */
  get hint(): string {
    return `Run \`openassistant mcp login ${this.server}\` where the gateway runs, then /reload (or restart).`;
  }
}

type Interactive = {
  readonly redirectUrl: string;
  /** The OAuth `state` the redirect must carry back (RFC 6749 §10.12). */
  readonly state: string;
  /** Called with the authorization URL the operator opens. */
  readonly onAuthorizationUrl: (url: URL) => void | Promise<void>;
};

/**
 * The SDK's `OAuthClientProvider` over the 0600 token file. In the gateway (`interactive`
 * undefined) it only uses and refreshes saved tokens: a refreshed (rotated) refresh token is
 * saved at once, and anything that would need the browser (no tokens, a refused refresh token)
 * throws McpLoginRequiredError instead. `openassistant mcp login` passes `interactive`.
 */
export class McpOAuthProvider implements OAuthClientProvider {
  private verifier: string | undefined;
  private invalidated: string | undefined;
  private refreshing: Promise<void> | undefined;
  private endRefresh: (() => void) | undefined;

  constructor(
    readonly server: string,
    readonly serverUrl: string,
    private readonly config: McpOAuthConfig,
    private readonly store: McpOAuthStore,
    private readonly interactive?: Interactive,
    /** Where every token and client secret read or obtained is registered for redaction. */
    private readonly secrets?: SecretSink,
  ) {
    secrets?.add("mcp-oauth", [config.clientSecret]);
  }

  /** Whether a login was saved for this server at this URL. */
  hasTokens(): boolean {
    return Boolean(this.store.get(this.server, this.serverUrl)?.tokens);
  }

  get redirectUrl(): string {
    return (
      this.interactive?.redirectUrl ??
      this.store.get(this.server, this.serverUrl)?.redirectUrl ??
      "http://127.0.0.1/callback"
    );
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "OpenAssistant",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: this.config.clientSecret ? "client_secret_post" : "none",
      ...(this.config.scopes?.length ? { scope: this.config.scopes.join(" ") } : {}),
    };
  }

  state(): string {
    return this.interactive?.state ?? Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64url");
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    if (this.config.clientId)
      return {
        client_id: this.config.clientId,
        ...(this.config.clientSecret ? { client_secret: this.config.clientSecret } : {}),
      };
    const client = this.store.get(this.server, this.serverUrl)?.client;
    this.secrets?.add("mcp-oauth", [client?.client_secret]);
    // Registering a client is the login's job: the gateway stops here rather than register one.
    if (!client && !this.interactive) throw new McpLoginRequiredError(this.server, "no client is registered");
    return client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    if (this.config.clientId) return; // configured by hand, nothing to keep
    if (!this.interactive) throw new McpLoginRequiredError(this.server, "no client is registered");
    this.secrets?.add("mcp-oauth", [info.client_secret]);
    this.store.update(this.server, this.serverUrl, (e) => {
      e.client = info;
    });
  }

  tokens(): OAuthTokens | undefined {
    const tokens = this.store.get(this.server, this.serverUrl)?.tokens;
    this.secrets?.add("mcp-oauth", [tokens?.access_token, tokens?.refresh_token, tokens?.id_token]);
    return tokens;
  }

  /** Tokens a login or a refresh obtained: registered before anything else can see them. */
  saveTokens(tokens: OAuthTokens): void {
    this.secrets?.add("mcp-oauth", [tokens.access_token, tokens.refresh_token, tokens.id_token]);
    this.store.update(this.server, this.serverUrl, (e) => {
      e.tokens = tokens;
      e.tokensSavedAt = new Date().toISOString();
      if (this.interactive) e.redirectUrl = this.interactive.redirectUrl;
    });
    this.endRefresh?.();
  }

  /**
   * The transport's fetch. Refresh tokens rotate, so two calls that both find the access token
   * expired must not both refresh with the same refresh token (the second would be refused, and
   * the SDK would then drop the first one's fresh tokens): token refreshes run one at a time,
   * each until its tokens are saved, and each sends the refresh token saved last.
   */
  readonly fetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const body = init?.body;
    if (!(body instanceof URLSearchParams) || body.get("grant_type") !== "refresh_token") return fetch(url, init);
    while (this.refreshing) await this.refreshing;
    let release!: () => void;
    this.refreshing = new Promise<void>((r) => (release = r));
    const timer = setTimeout(() => done(), 30_000); // the SDK saves right after a good answer; never wait forever
    const done = () => {
      clearTimeout(timer);
      this.refreshing = undefined;
      this.endRefresh = undefined;
      release();
    };
    this.endRefresh = done;
    try {
      const current = this.tokens()?.refresh_token;
      if (current) body.set("refresh_token", current);
      const response = await fetch(url, { ...init, body });
      if (!response.ok) done();
      return response;
    } catch (e) {
      done();
      throw e;
    }
  };

  async redirectToAuthorization(url: URL): Promise<void> {
    if (!this.interactive)
      throw new McpLoginRequiredError(
        this.server,
        this.invalidated === "tokens" || this.invalidated === "all"
          ? "the authorization server refused the saved login"
          : "not logged in",
      );
    await this.interactive.onAuthorizationUrl(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error(`no PKCE code verifier for MCP server "${this.server}": start the login again`);
    return this.verifier;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.store.get(this.server, this.serverUrl)?.discovery;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.store.update(this.server, this.serverUrl, (e) => {
      e.discovery = state;
    });
  }

  /** The SDK calls this when the server refused what was saved (e.g. `invalid_grant` on refresh). */
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    this.invalidated = scope;
    if (scope === "verifier") {
      this.verifier = undefined;
      return;
    }
    if (!this.store.get(this.server, this.serverUrl)) return;
    this.store.update(this.server, this.serverUrl, (e) => {
      if (scope === "all" || scope === "tokens") delete e.tokens;
      if (scope === "all" || scope === "client") delete e.client;
      if (scope === "all" || scope === "discovery") delete e.discovery;
    });
  }
}

export interface McpLoginOptions {
  readonly name: string;
  readonly serverUrl: string;
  readonly oauth: McpOAuthConfig;
  readonly configDir: string;
  /** Shows the authorization URL (print it, open a browser, or in tests: fetch it). */
  readonly openUrl: (url: string) => void | Promise<void>;
  /** How long to wait for the browser to come back (default 5 minutes). */
  readonly timeoutMs?: number;
}

/**
 * `openassistant mcp login <name>`: authorization code + PKCE through the SDK. Listens on
 * http://127.0.0.1:<port>/callback (RFC 8252 §7.3 loopback redirect), registers a client unless
 * one is configured, hands the authorization URL to `openUrl`, waits for the code, checks `state`,
 * exchanges the code and saves the tokens (0600 file). Returns the granted scope and lifetime.
 */
export async function mcpLogin(o: McpLoginOptions): Promise<{ scope?: string; expiresIn?: number }> {
  const store = new McpOAuthStore(o.configDir);
  let settle!: { resolve: (p: URLSearchParams) => void; reject: (e: Error) => void };
  const state = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64url");
  const callback = new Promise<URLSearchParams>((resolve, reject) => (settle = { resolve, reject }));
  callback.catch(() => {}); // awaited below; a timeout before that must not be an unhandled rejection
  let http: ReturnType<typeof Bun.serve>;
  try {
    http = Bun.serve({
      hostname: "127.0.0.1",
      port: o.oauth.redirectPort ?? 0,
      fetch(req) {
        const url = new URL(req.url);
        if (url.pathname !== "/callback") return new Response("not found", { status: 404 });
        // Anything on this machine can reach this port: only the redirect of this login counts.
        if (url.searchParams.get("state") !== state)
          return new Response("state does not match this login; ignored", { status: 400 });
        settle.resolve(url.searchParams);
        const ok = url.searchParams.has("code");
        return new Response(
          ok
            ? `OpenAssistant: logged in to MCP server "${o.name}". You can close this tab.`
            : `OpenAssistant: the login to MCP server "${o.name}" failed; see the terminal.`,
          { headers: { "content-type": "text/plain; charset=utf-8" } },
        );
      },
    });
  } catch (e) {
    throw new Error(
      `cannot listen on 127.0.0.1:${o.oauth.redirectPort} for the OAuth redirect (${(e as Error).message}); ` +
        `free the port or change mcp.servers.${o.name}.oauth.redirectPort`,
    );
  }
  const timer = setTimeout(
    () =>
      settle.reject(new Error(`no answer from the browser within ${Math.round((o.timeoutMs ?? 300_000) / 1000)} s`)),
    o.timeoutMs ?? 300_000,
  );
  try {
    // A login starts over: old tokens go, and a registered client too (its redirect URI had another port).
    store.update(o.name, o.serverUrl, (e) => {
      delete e.tokens;
      delete e.discovery;
      if (!o.oauth.clientId) delete e.client;
    });
    const provider = new McpOAuthProvider(o.name, o.serverUrl, o.oauth, store, {
      redirectUrl: `http://127.0.0.1:${http.port}/callback`,
      state,
      onAuthorizationUrl: (url) => o.openUrl(url.toString()),
    });
    const scope = o.oauth.scopes?.length ? o.oauth.scopes.join(" ") : undefined;
    // Loaded here: the MCP SDK costs ~250 ms to import and only a login or a connection needs it.
    const { auth } = await import("@modelcontextprotocol/sdk/client/auth.js");
    const first = await auth(provider, { serverUrl: o.serverUrl, ...(scope ? { scope } : {}) });
    if (first === "REDIRECT") {
      const params = await callback;
      const error = params.get("error");
      if (error)
        throw new Error(
          `the authorization server refused: ${error}${params.get("error_description") ? ` (${params.get("error_description")})` : ""}`,
        );
      const code = params.get("code");
      if (!code) throw new Error("the redirect carried no authorization code");
      const second = await auth(provider, { serverUrl: o.serverUrl, authorizationCode: code });
      if (second !== "AUTHORIZED") throw new Error("the authorization code was not exchanged for tokens");
    }
    const tokens = provider.tokens();
    return {
      ...(tokens?.scope ? { scope: tokens.scope } : {}),
      ...(tokens?.expires_in !== undefined ? { expiresIn: tokens.expires_in } : {}),
    };
  } finally {
    clearTimeout(timer);
    await http.stop(true);
  }
}

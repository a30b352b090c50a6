/**
 * Follows redirects by hand (`redirect: "manual"`) so credentials stay on their origin: the first
 * hop to another origin drops every credential header and query parameter, and they stay dropped
 * for the rest of the chain (a redirect back does not bring them back). This is what the Fetch
 * standard does for `Authorization` (https://fetch.spec.whatwg.org/#http-redirect-fetch, step 13),
 * extended to the header or query parameter an API key travels in. A request that still carries a
 * body is not sent to another origin at all (the MCP SDK's transports refuse every cross-origin
 * redirect, its default `redirectPolicy: "same-origin"`); a GET may go, without credentials (a
 * download an API hands off to a storage host).
 */
export interface Credentials {
  /** Header names that carry a credential (case-insensitive). */
  readonly headers: readonly string[];
  /** Query parameter names that carry a credential. */
  readonly query: readonly string[];
}

export const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export class RedirectError extends Error {}

export async function fetchKeepingCredentials(
  url: URL,
  init: RequestInit & { readonly headers: Record<string, string> },
  credentials: Credentials,
  fetcher: typeof fetch = fetch,
): Promise<Response> {
  const origin = url.origin;
  let current = url;
  let request: RequestInit & { headers: Record<string, string> } = { ...init, headers: { ...init.headers } };
  for (let hop = 0; ; hop++) {
    const res = await fetcher(current, { ...request, redirect: "manual" });
    const location = res.headers.get("location");
    if (!REDIRECT_STATUSES.has(res.status) || location === null) return res;
    await res.body?.cancel().catch(() => {});
    if (hop >= MAX_REDIRECTS)
      throw new RedirectError(`${describe(url)} was redirected more than ${MAX_REDIRECTS} times; not followed further`);
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw new RedirectError(`${describe(url)} was redirected to an unreadable location`);
    }
    if (next.protocol !== "http:" && next.protocol !== "https:")
      throw new RedirectError(`${describe(url)} was redirected to a ${next.protocol} URL; not followed`);
    // 303, and 301/302 after a POST, turn into a GET without a body (Fetch standard, step 12).
    const method = (request.method ?? "GET").toUpperCase();
    if (res.status === 303 ? method !== "HEAD" : (res.status === 301 || res.status === 302) && method === "POST") {
      const { body: _body, ...rest } = request;
      const headers = { ...rest.headers };
      delete headers["content-type"];
      request = { ...rest, method: "GET", headers };
    }
    if (next.origin !== origin) {
      // A body (the tool's input) goes only where the spec says, as the MCP SDK's same-origin policy has it.
      if (request.body !== undefined && request.body !== null)
        throw new RedirectError(
          `${describe(url)} was redirected to another origin (${next.origin}) with its body; not followed (the input stays with ${origin})`,
        );
      request = withoutCredentials(request, credentials, next);
    }
    current = next;
  }
}

function withoutCredentials(
  request: RequestInit & { headers: Record<string, string> },
  credentials: Credentials,
  next: URL,
): RequestInit & { headers: Record<string, string> } {
  const drop = new Set(credentials.headers.map((h) => h.toLowerCase()));
  drop.add("authorization");
  drop.add("cookie");
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) if (!drop.has(name.toLowerCase())) headers[name] = value;
  // The other origin's Location may carry the credential parameter back: it goes too.
  for (const q of credentials.query) next.searchParams.delete(q);
  return { ...request, headers };
}

function describe(url: URL): string {
  return `the request to ${url.origin}${url.pathname}`;
}

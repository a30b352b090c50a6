/** A small client for the PostHog endpoints this plugin uses (https://posthog.com/docs/api). */
export interface PostHogClientOptions {
  host: string;
  projectId: string;
  personalApiKey: string;
  ingestHost: string;
  projectApiKey?: string;
}

export class PostHogError extends Error {
  override name = "PostHogError";
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(`PostHog answered ${status}: ${detail}`);
  }
}

export function postHogClient(o: PostHogClientOptions) {
  const app = `${o.host.replace(/\/$/, "")}/api/projects/${o.projectId}`;
  async function call<T>(url: string, init: RequestInit & { auth?: boolean }): Promise<T> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (init.auth !== false) headers.authorization = `Bearer ${o.personalApiKey}`;
    const res = await fetch(url, { ...init, headers });
    const text = await res.text();
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (!res.ok) {
      const detail = body?.detail
        ? `${body.detail}${body.attr ? ` (${body.attr})` : ""}`
        : text.slice(0, 300) || res.statusText;
      throw new PostHogError(res.status, detail);
    }
    return body as T;
  }
  return {
    hogql: (query: string, values: Record<string, unknown>, signal?: AbortSignal) =>
      call<{ columns: string[]; results: unknown[][] }>(`${app}/query/`, {
        method: "POST",
        body: JSON.stringify({ query: { kind: "HogQLQuery", query, values } }),
        signal,
      }),
    listAlerts: (signal?: AbortSignal) =>
      call<{ count: number; results: Array<Record<string, unknown>> }>(`${app}/alerts/`, { method: "GET", signal }),
    createAlert: (alert: Record<string, unknown>, signal?: AbortSignal) =>
      call<Record<string, unknown>>(`${app}/alerts/`, { method: "POST", body: JSON.stringify(alert), signal }),
    capture: (
      event: { event: string; distinct_id: string; properties?: Record<string, unknown>; timestamp?: string },
      signal?: AbortSignal,
    ) => {
      if (!o.projectApiKey)
        throw new Error("events.capture needs config.posthog.projectApiKey (the project API key, phc_…)");
      return call<unknown>(`${o.ingestHost.replace(/\/$/, "")}/i/v0/e/`, {
        method: "POST",
        auth: false,
        body: JSON.stringify({ api_key: o.projectApiKey, ...event }),
        signal,
      });
    },
  };
}

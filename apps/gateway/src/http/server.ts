import { callStatus, formatSummaryForModel, summarizeRun, type CallStatus } from "@openassistant/core/receipts";
import type { Receipt, ReceiptLog, ReceiptQuery, ReceiptReader } from "@openassistant/core/receipts";
import type { EventBus } from "../events/bus.ts";
import { bearerMatches } from "./token.ts";
import { eventStreamResponse } from "./event-stream.ts";
import { CLIENT_PATH, type ClientEndpoint } from "../clients/websocket.ts";

export interface HttpApiOptions {
  readonly port: number;
  readonly token: string;
  readonly receipts: Pick<ReceiptReader, "byRun" | "query"> & Pick<ReceiptLog, "verifyRun">;
  readonly events: Pick<EventBus, "subscribe">;
  /** Extra fields for /health (tool count, active turns …). */
  readonly health?: () => Record<string, unknown>;
  /** Listen address; default 127.0.0.1. */
  readonly hostname?: string;
  /** Serves `/console/…` (the operator console; its own auth: signed links and operator sessions). */
  readonly console?: { handle(req: Request): Response | Promise<Response> };
  /** SSE keep-alive comment interval; default 15 s. */
  readonly keepAliveMs?: number;
  /** #34: client connections on `/client` (a WebSocket opened with a client token, not `token`). */
  readonly clients?: ClientEndpoint;
}

export interface HttpApi {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

const STATUSES: readonly CallStatus[] = ["succeeded", "failed", "denied", "pending"];
const MAX_LIMIT = 5000;

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
  });
const problem = (status: number, error: string) => json({ error }, status);

/** The local HTTP API: 127.0.0.1 only, every route behind the bearer token. */
export function startHttpApi(options: HttpApiOptions): HttpApi {
  const started = Date.now();
  const streams = new Set<() => void>();
  const server = Bun.serve({
    hostname: options.hostname ?? "127.0.0.1",
    port: options.port,
    idleTimeout: 0,
    // Only `/client` upgrades (#34); without client sessions nothing does and this handler is idle.
    websocket: options.clients?.websocket ?? NO_WEBSOCKETS,
    fetch(req, server) {
      try {
        if (options.clients && new URL(req.url).pathname === CLIENT_PATH)
          return options.clients.upgrade(req, server as never);
        if (options.console && isConsolePath(new URL(req.url).pathname))
          return Promise.resolve(options.console.handle(req)).catch((e) =>
            problem(500, `internal error: ${e instanceof Error ? e.message : String(e)}`),
          );
        return route(req).catch((e) => problem(500, `internal error: ${e instanceof Error ? e.message : String(e)}`));
      } catch (e) {
        // Never a dropped connection: a failing store (e.g. the database closing at shutdown) is a 500 that says so.
        return problem(500, `internal error: ${e instanceof Error ? e.message : String(e)}`);
      }
    },
  });

  async function route(req: Request): Promise<Response> {
    const url = new URL(req.url);
    if (!bearerMatches(req.headers.get("authorization"), options.token))
      return new Response(
        JSON.stringify({
          error:
            "missing or wrong bearer token: send Authorization: Bearer <token> (see http.token or .openassistant/data/http-token)",
        }),
        {
          status: 401,
          headers: { "content-type": "application/json", "www-authenticate": 'Bearer realm="openassistant"' },
        },
      );
    if (req.method !== "GET") return problem(405, `${req.method} is not supported; the API is read-only (GET)`);
    if (url.pathname === "/health") return json({ ok: true, uptimeMs: Date.now() - started, ...options.health?.() });
    const run = /^\/runs\/([^/]+)$/.exec(url.pathname);
    if (run) {
      let runId: string;
      try {
        runId = decodeURIComponent(run[1]!);
      } catch {
        return problem(
          400,
          `the run id in ${url.pathname} is not valid percent-encoding; send it as /runs/<run id> (e.g. /runs/run_0123…)`,
        );
      }
      return runRoute(runId);
    }
    if (url.pathname === "/receipts") return receiptsRoute(url.searchParams);
    if (url.pathname === "/events") return eventsRoute(req);
    return problem(404, `no route ${url.pathname}; try /health, /runs/:id, /receipts, /events`);
  }

  async function runRoute(runId: string): Promise<Response> {
    const receipts = await options.receipts.byRun(runId);
    if (receipts.length === 0) return problem(404, `no receipts for run "${runId}"`);
    const summary = summarizeRun(receipts);
    return json({
      runId,
      receipts,
      summary,
      summaryText: formatSummaryForModel(summary),
      integrity: await options.receipts.verifyRun(runId),
    });
  }

  async function receiptsRoute(params: URLSearchParams): Promise<Response> {
    const status = params.get("status") ?? undefined;
    if (status && !STATUSES.includes(status as CallStatus))
      return problem(400, `status must be one of ${STATUSES.join(", ")} (got "${status}")`);
    const sinceRaw = params.get("since");
    let since: number | undefined;
    if (sinceRaw) {
      since = /^\d+$/.test(sinceRaw) ? Number(sinceRaw) : Date.parse(sinceRaw);
      if (!Number.isFinite(since))
        return problem(400, `since must be epoch milliseconds or an ISO date (got "${sinceRaw}")`);
    }
    const limitRaw = params.get("limit");
    const limit = limitRaw ? Number(limitRaw) : 500;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
      return problem(400, `limit must be an integer 1..${MAX_LIMIT}`);
    const query: ReceiptQuery = {
      ...(params.get("run") ? { runId: params.get("run")! } : {}),
      ...(params.get("tool") ? { tool: params.get("tool")! } : {}),
      ...(since !== undefined ? { since } : {}),
      ...(status ? {} : { limit }),
    };
    let receipts: Receipt[] = await options.receipts.query(query);
    if (status) receipts = filterByCallStatus(receipts, status as CallStatus).slice(-limit);
    return json({ count: receipts.length, receipts });
  }

  function eventsRoute(req: Request): Response {
    return eventStreamResponse(req, {
      events: options.events,
      frame: (e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`,
      keepAliveMs: options.keepAliveMs ?? 15_000,
      open: streams,
    });
  }

  return {
    url: `http://${urlHost(options.hostname ?? "127.0.0.1")}:${server.port}`,
    port: server.port!,
    async close() {
      for (const end of [...streams]) end();
      await server.stop(true);
    },
  };
}

const NO_WEBSOCKETS = { message() {} } as unknown as ClientEndpoint["websocket"];

const isConsolePath = (path: string) => path === "/console" || path.startsWith("/console/");

/** A host as it goes in a URL: IPv6 in brackets, the unspecified address as loopback. */
function urlHost(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}

/** Receipts of the calls whose current status (latest phase in the set) is `status`. */
function filterByCallStatus(receipts: Receipt[], status: CallStatus): Receipt[] {
  const statuses = callStatus(receipts);
  return receipts.filter((r) => statuses.get(r.callId) === status);
}

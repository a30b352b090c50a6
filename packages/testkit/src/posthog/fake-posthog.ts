/**
 * A fake PostHog on 127.0.0.1: the endpoints the posthog plugin uses, with the rules PostHog's API
 * documentation states. A request the docs say is invalid is answered with PostHog's error shape
 * (`{ type, code, detail, attr }`, https://posthog.com/docs/api — "Error response") and recorded in
 * `violations`, so the test that sent it fails when it asserts `violations` is empty.
 *
 * Serves both PostHog hosts on one port: the app host (private API, personal API key) and the
 * ingestion host (`/i/v0/e/`, project API key).
 */

export interface FakeAlert {
  id: string;
  name: string;
  insight: number;
  enabled: boolean;
  calculation_interval: string;
  condition: { type: string };
  threshold: { configuration: { type: string; bounds: { lower?: number; upper?: number } } };
  subscribed_users: number[];
  state: string;
}

export interface CapturedEvent {
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  timestamp?: string;
}

export interface HogQLResult {
  columns: string[];
  results: unknown[][];
}

export interface FakePostHogOptions {
  /** The personal API key the private API accepts (Authorization: Bearer). */
  personalApiKey: string;
  /** The project API key the capture endpoint accepts. */
  projectApiKey: string;
  projectId: string;
  /** Saved insights alerts may point at. */
  insights?: number[];
  /** Answers HogQL queries; the fake checks the request, this decides the rows. */
  hogql?: (query: string, values: Record<string, unknown>) => HogQLResult;
}

export interface FakePostHog {
  readonly url: string;
  readonly alerts: FakeAlert[];
  readonly events: CapturedEvent[];
  readonly queries: Array<{ query: string; values: Record<string, unknown> }>;
  readonly violations: Array<{ method: string; path: string; problem: string }>;
  close(): Promise<void>;
}

const INTERVALS = ["hourly", "daily", "weekly", "monthly"];
const CONDITIONS = ["absolute_value", "relative_increase", "relative_decrease"];
const THRESHOLD_TYPES = ["absolute", "percentage"];

export async function startFakePostHog(options: FakePostHogOptions): Promise<FakePostHog> {
  const alerts: FakeAlert[] = [];
  const events: CapturedEvent[] = [];
  const queries: FakePostHog["queries"] = [];
  const violations: FakePostHog["violations"] = [];
  const insights = new Set(options.insights ?? []);

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req): Promise<Response> {
      const url = new URL(req.url);
      const path = url.pathname;
      const reject = (status: number, type: string, code: string, detail: string, attr: string | null = null) => {
        violations.push({
          method: req.method,
          path,
          problem: `${status} ${code}: ${detail}${attr ? ` (${attr})` : ""}`,
        });
        return json(status, { type, code, detail, attr });
      };
      let body: any;
      if (req.method === "POST") {
        try {
          body = await req.json();
        } catch {
          return reject(400, "validation_error", "parse_error", "JSON parse error");
        }
      }

      // Capture: "Every event request must contain an api_key, distinct_id, and event field"
      // (https://posthog.com/docs/api/capture). It takes the project API key, never a personal one.
      if (path === "/i/v0/e/" || path === "/i/v0/e") {
        if (req.method !== "POST") return reject(405, "invalid_request", "method_not_allowed", "capture is POST-only");
        for (const field of ["api_key", "event", "distinct_id"] as const)
          if (typeof body?.[field] !== "string" || body[field] === "")
            return reject(400, "validation_error", "invalid_payload", `${field} is required`, field);
        if (body.api_key !== options.projectApiKey)
          return reject(
            401,
            "authentication_error",
            "invalid_api_key",
            "Project API key invalid. You can find your project API key in PostHog project settings.",
          );
        events.push({
          event: body.event,
          distinct_id: body.distinct_id,
          properties: body.properties ?? {},
          ...(body.timestamp ? { timestamp: body.timestamp } : {}),
        });
        return json(200, { status: "Ok" });
      }

      // The private API: "Authorization: Bearer $POSTHOG_PERSONAL_API_KEY" (https://posthog.com/docs/api/queries).
      if (req.headers.get("authorization") !== `Bearer ${options.personalApiKey}`)
        return reject(
          401,
          "authentication_error",
          "not_authenticated",
          "Authentication credentials were not provided.",
        );
      const project = `/api/projects/${options.projectId}`;
      // Every documented private endpoint ends in a slash (`/api/projects/:project_id/query/`);
      // Django cannot redirect a POST that lacks it.
      if (!path.endsWith("/")) return reject(404, "invalid_request", "not_found", `${path} has no trailing slash`);

      if (path === `${project}/query/` && req.method === "POST") {
        // "a JSON object with a query property with a kind and query property" (https://posthog.com/docs/api/queries)
        const q = body?.query;
        if (typeof q !== "object" || q === null)
          return reject(400, "validation_error", "required", "query is required", "query");
        if (q.kind !== "HogQLQuery")
          return reject(
            400,
            "validation_error",
            "invalid_input",
            `the fake serves HogQLQuery only, got ${q.kind}`,
            "query.kind",
          );
        if (typeof q.query !== "string" || !q.query.trim())
          return reject(400, "validation_error", "required", "query.query is required", "query.query");
        const values: Record<string, unknown> = q.values ?? {};
        // HogQL placeholders `{name}` must be given in `values` (https://posthog.com/docs/sql/variables).
        for (const [, name] of q.query.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g))
          if (name !== "filters" && !(name! in values))
            return reject(
              400,
              "validation_error",
              "query_error",
              `Placeholder {${name}} is not defined in values`,
              "query.values",
            );
        queries.push({ query: q.query, values });
        const out = options.hogql?.(q.query, values) ?? { columns: [], results: [] };
        return json(200, { ...out, types: [], hogql: q.query, is_cached: false });
      }

      if (path === `${project}/alerts/` && req.method === "GET")
        // Paginated lists: { count, next, previous, results } (https://posthog.com/docs/api — "Pagination").
        return json(200, { count: alerts.length, next: null, previous: null, results: alerts });

      if (path === `${project}/alerts/` && req.method === "POST") {
        // Alerts watch a saved trends insight with a threshold (https://posthog.com/docs/alerts).
        if (typeof body?.name !== "string" || !body.name)
          return reject(400, "validation_error", "required", "This field is required.", "name");
        if (typeof body.insight !== "number")
          return reject(400, "validation_error", "required", "This field is required.", "insight");
        if (!insights.has(body.insight))
          return reject(
            400,
            "validation_error",
            "does_not_exist",
            `Invalid pk "${body.insight}" - object does not exist.`,
            "insight",
          );
        if (!Array.isArray(body.subscribed_users) || body.subscribed_users.length === 0)
          return reject(400, "validation_error", "required", "This field is required.", "subscribed_users");
        const cfg = body.threshold?.configuration;
        if (!THRESHOLD_TYPES.includes(cfg?.type))
          return reject(
            400,
            "validation_error",
            "invalid_input",
            `threshold.configuration.type must be one of ${THRESHOLD_TYPES.join(", ")}`,
            "threshold",
          );
        const bounds = cfg.bounds ?? {};
        if (typeof bounds.lower !== "number" && typeof bounds.upper !== "number")
          return reject(
            400,
            "validation_error",
            "invalid_input",
            "a threshold needs a lower or an upper bound",
            "threshold",
          );
        if (!CONDITIONS.includes(body.condition?.type))
          return reject(
            400,
            "validation_error",
            "invalid_input",
            `condition.type must be one of ${CONDITIONS.join(", ")}`,
            "condition",
          );
        const interval = body.calculation_interval ?? "daily";
        if (!INTERVALS.includes(interval))
          return reject(
            400,
            "validation_error",
            "invalid_choice",
            `"${interval}" is not a valid choice.`,
            "calculation_interval",
          );
        const alert: FakeAlert = {
          id: crypto.randomUUID(),
          name: body.name,
          insight: body.insight,
          enabled: body.enabled ?? true,
          calculation_interval: interval,
          condition: body.condition,
          threshold: body.threshold,
          subscribed_users: body.subscribed_users,
          state: "Not firing",
        };
        alerts.push(alert);
        return json(201, alert);
      }
      return reject(404, "invalid_request", "not_found", `the fake PostHog does not serve ${req.method} ${path}`);
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    alerts,
    events,
    queries,
    violations,
    close: async () => {
      await server.stop(true);
    },
  };
}

function json(status: number, value: unknown): Response {
  return new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });
}

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
  condition: { type: string } | null;
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
  /** Ids of the organization's users an alert may subscribe (default: [1]). */
  users?: number[];
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
  const users = new Set(options.users ?? [1]);

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
        return json(200, { count: alerts.length, next: null, previous: null, results: alerts.map(alertResponse) });

      if (path === `${project}/alerts/` && req.method === "POST") {
        // "Create alerts" (https://posthog.com/docs/api/alerts, scope alert:write) takes the Alert
        // serializer; its schema (PostHog's OpenAPI, mirrored at
        // https://raw.githubusercontent.com/api-evangelist/posthog/refs/heads/main/json-schema/posthog-alert-schema.json)
        // requires insight, subscribed_users and threshold among the writable fields; name is optional.
        // Alerts watch a saved trends insight (https://posthog.com/docs/alerts).
        const bad = (attr: string, code: string, detail: string) => reject(400, "validation_error", code, detail, attr);
        if (typeof body !== "object" || body === null || Array.isArray(body))
          return bad("non_field_errors", "invalid", "Invalid data. Expected a dictionary.");
        if (body.name !== undefined && typeof body.name !== "string")
          return bad("name", "invalid", "Not a valid string.");
        if (body.insight === undefined) return bad("insight", "required", "This field is required.");
        if (!Number.isInteger(body.insight))
          return bad(
            "insight",
            "incorrect_type",
            `Incorrect type. Expected pk value, received ${typeof body.insight}.`,
          );
        // A primary-key field names an existing row (DRF PrimaryKeyRelatedField).
        if (!insights.has(body.insight))
          return bad("insight", "does_not_exist", `Invalid pk "${body.insight}" - object does not exist.`);
        if (body.subscribed_users === undefined) return bad("subscribed_users", "required", "This field is required.");
        if (!Array.isArray(body.subscribed_users))
          return bad(
            "subscribed_users",
            "not_a_list",
            'Expected a list of items but got type "' + typeof body.subscribed_users + '".',
          );
        for (const id of body.subscribed_users) {
          if (!Number.isInteger(id))
            return bad(
              "subscribed_users",
              "incorrect_type",
              `Incorrect type. Expected pk value, received ${typeof id}.`,
            );
          if (!users.has(id))
            return bad("subscribed_users", "does_not_exist", `Invalid pk "${id}" - object does not exist.`);
        }
        const thresholdProblem = checkThreshold(body.threshold);
        if (thresholdProblem) return bad("threshold", "invalid_input", thresholdProblem);
        // AlertCondition: nullable; when given, { type } only, type one of AlertConditionType.
        if (body.condition !== undefined && body.condition !== null) {
          const c = body.condition;
          if (typeof c !== "object" || !CONDITIONS.includes(c.type) || Object.keys(c).some((k) => k !== "type"))
            return bad(
              "condition",
              "invalid_input",
              `condition must be { type } with type one of ${CONDITIONS.join(", ")}`,
            );
        }
        // TrendsAlertConfig: series_index (integer) required; no other keys but check_ongoing_interval and type.
        if (body.config !== undefined && body.config !== null) {
          const c = body.config;
          if (typeof c !== "object" || !Number.isInteger(c.series_index))
            return bad("config", "invalid_input", "config.series_index (integer) is required");
          if (Object.keys(c).some((k) => !["series_index", "check_ongoing_interval", "type"].includes(k)))
            return bad("config", "invalid_input", "config takes series_index, check_ongoing_interval and type only");
        }
        const interval = body.calculation_interval ?? "daily";
        if (!INTERVALS.includes(interval))
          return bad("calculation_interval", "invalid_choice", `"${interval}" is not a valid choice.`);
        if (body.enabled !== undefined && typeof body.enabled !== "boolean")
          return bad("enabled", "invalid", "Must be a valid boolean.");
        const alert: FakeAlert = {
          id: crypto.randomUUID(),
          name: body.name ?? "",
          insight: body.insight,
          enabled: body.enabled ?? true,
          calculation_interval: interval,
          condition: body.condition ?? null,
          threshold: body.threshold,
          subscribed_users: body.subscribed_users,
          state: "Not firing",
        };
        alerts.push(alert);
        return json(201, alertResponse(alert));
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

/**
 * `threshold`: { configuration: InsightThreshold } where InsightThreshold is { type, bounds? } and
 * nothing else (additionalProperties: false), type "absolute" | "percentage", bounds { lower?, upper? }
 * numbers or null and nothing else (posthog-threshold-schema.json, posthog-insightthreshold-schema.json,
 * posthog-insightsthresholdbounds-schema.json in the mirror above). Returns the problem, or undefined.
 */
function checkThreshold(threshold: any): string | undefined {
  if (threshold === undefined) return "This field is required.";
  const cfg = threshold?.configuration;
  if (typeof cfg !== "object" || cfg === null) return "threshold.configuration is required";
  if (!THRESHOLD_TYPES.includes(cfg.type))
    return `threshold.configuration.type must be one of ${THRESHOLD_TYPES.join(", ")}`;
  const extra = Object.keys(cfg).filter((k) => k !== "type" && k !== "bounds");
  if (extra.length) return `threshold.configuration takes type and bounds only, not ${extra.join(", ")}`;
  const bounds = cfg.bounds;
  if (bounds === undefined || bounds === null) return undefined;
  if (typeof bounds !== "object") return "threshold.configuration.bounds must be an object";
  for (const [k, v] of Object.entries(bounds)) {
    if (k !== "lower" && k !== "upper") return `threshold.configuration.bounds takes lower and upper only, not ${k}`;
    if (v !== null && typeof v !== "number") return `threshold.configuration.bounds.${k} must be a number or null`;
  }
  return undefined;
}

/**
 * An alert as PostHog answers with it: `insight` and `subscribed_users` come back as objects
 * ("Note: Response returns full InsightBasicSerializer object" / "UserBasicSerializer object",
 * posthog-alert-schema.json), the threshold with its own id.
 */
function alertResponse(a: FakeAlert) {
  return {
    ...a,
    insight: { id: a.insight, short_id: `i${a.insight}`, name: `Insight ${a.insight}` },
    subscribed_users: a.subscribed_users.map((id) => ({
      id,
      uuid: `00000000-0000-4000-8000-${String(id).padStart(12, "0")}`,
    })),
    threshold: { id: `${a.id}-t`, created_at: new Date(0).toISOString(), name: "", ...a.threshold },
    created_at: new Date(0).toISOString(),
    checks: [],
    last_checked_at: null,
    last_notified_at: null,
    next_check_at: null,
    last_value: null,
  };
}

function json(status: number, value: unknown): Response {
  return new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });
}

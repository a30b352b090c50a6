import { definePlugin, defineTool, z } from "@openassistant/sdk";
import { postHogClient } from "./client.ts";

/** `config.posthog`; openassistant.json carries the same rules as JSON Schema, checked before import. */
const PostHogConfig = z.object({
  personalApiKey: z.string().min(1),
  projectId: z.string().regex(/^[0-9]+$/),
  host: z.string().default("https://us.posthog.com"),
  projectApiKey: z.string().optional(),
  ingestHost: z.string().default("https://us.i.posthog.com"),
});

/** An alert's `insight` as PostHog returns it: an InsightBasic object (older answers: the bare id). */
function insightId(insight: unknown): unknown {
  return typeof insight === "object" && insight !== null && "id" in insight ? (insight as { id: unknown }).id : insight;
}

const eventName = z.string().min(1).max(200).describe('Event name, e.g. "user signed up" or "$pageview"');

export default definePlugin({
  config: PostHogConfig,
  tools: (ctx) => {
    const posthog = postHogClient(ctx.config);
    const rows = (r: { columns: string[]; results: unknown[][] }) =>
      r.results.map((row) => Object.fromEntries(r.columns.map((c, i) => [c, row[i]])));
    return {
      query: {
        hogql: defineTool({
          description: "Run a read-only HogQL (SQL) query over the project's events; returns rows as objects",
          approval: "auto",
          readOnly: true,
          args: z.object({
            query: z
              .string()
              .min(1)
              .max(20_000)
              .describe("HogQL, e.g. SELECT event, count() FROM events GROUP BY event"),
            values: z
              .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
              .optional()
              .describe("Values for {placeholders} in the query"),
          }),
          run: async ({ query, values }, call) => rows(await posthog.hogql(query, values ?? {}, call?.signal)),
        }),
        dailyCounts: defineTool({
          description: "How many times an event happened per day over the last N days (oldest first)",
          approval: "auto",
          readOnly: true,
          args: z.object({ event: eventName, days: z.number().int().min(1).max(365).default(14) }),
          run: async ({ event, days }, call) => {
            // Values travel as placeholders, never spliced into the SQL.
            const sql =
              "SELECT toDate(timestamp) AS day, count() AS count FROM events WHERE event = {event} AND timestamp >= now() - toIntervalDay({days}) GROUP BY day ORDER BY day";
            return rows(await posthog.hogql(sql, { event, days }, call?.signal));
          },
        }),
      },
      alerts: {
        list: defineTool({
          description: "List the project's alerts (threshold monitors on insights)",
          approval: "auto",
          readOnly: true,
          args: z.object({}),
          run: async (_input, call) => {
            const page = await posthog.listAlerts(call?.signal);
            return page.results.map((a) => ({
              id: a.id,
              name: a.name,
              // PostHog answers with the whole insight object here (its id is what alerts.create takes).
              insight: insightId(a.insight),
              state: a.state,
              enabled: a.enabled,
              interval: a.calculation_interval,
              threshold: a.threshold,
            }));
          },
        }),
        create: defineTool({
          description:
            "Create an alert that notifies subscribed users when a trends insight's value goes below `lower` or above `upper`",
          approval: "required",
          args: z.object({
            name: z.string().min(1).max(255),
            insightId: z.number().int().positive().describe("Id of a saved trends insight"),
            lower: z.number().optional().describe("Fire when the value drops below this"),
            upper: z.number().optional().describe("Fire when the value rises above this"),
            interval: z.enum(["hourly", "daily", "weekly", "monthly"]).default("daily"),
            subscribedUserIds: z.array(z.number().int().positive()).min(1).describe("PostHog user ids to notify"),
          }),
          previewInput: (i) =>
            `${i.name}: insight ${i.insightId}${i.lower !== undefined ? ` < ${i.lower}` : ""}${i.upper !== undefined ? ` > ${i.upper}` : ""} (${i.interval})`,
          run: async (i, call) => {
            if (i.lower === undefined && i.upper === undefined) throw new Error("give lower, upper or both");
            const bounds = {
              ...(i.lower !== undefined ? { lower: i.lower } : {}),
              ...(i.upper !== undefined ? { upper: i.upper } : {}),
            };
            const alert = await posthog.createAlert(
              {
                name: i.name,
                insight: i.insightId,
                subscribed_users: i.subscribedUserIds,
                calculation_interval: i.interval,
                condition: { type: "absolute_value" },
                threshold: { configuration: { type: "absolute", bounds } },
                enabled: true,
              },
              call?.signal,
            );
            return { id: alert.id, name: alert.name, state: alert.state };
          },
        }),
      },
      events: {
        capture: defineTool({
          description: "Send an event to PostHog",
          approval: "required",
          args: z.object({
            event: eventName,
            distinctId: z.string().min(1).describe("Who did it"),
            properties: z.record(z.string(), z.unknown()).optional(),
          }),
          run: async ({ event, distinctId, properties }, call) => {
            await posthog.capture(
              { event, distinct_id: distinctId, ...(properties ? { properties } : {}) },
              call?.signal,
            );
            return { captured: event };
          },
        }),
      },
    };
  },
});

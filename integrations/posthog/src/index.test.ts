import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { z } from "@openassistant/sdk";
import { loadTools } from "@openassistant/core/plugins";
import { indexToolTree } from "@openassistant/core/testing";
import { startFakePostHog, type FakePostHog } from "@openassistant/testkit/posthog/fake-posthog.ts";
import { pluginProject, runLoadedTool } from "@openassistant/testkit/plugin-project.ts";

const PLUGIN_DIR = join(import.meta.dir, "..");
const PERSONAL = "phx_personalKeyForTests0123456789";
const PROJECT = "phc_projectKeyForTests0123456789";
let ph: FakePostHog;

beforeAll(async () => {
  ph = await startFakePostHog({
    personalApiKey: PERSONAL,
    projectApiKey: PROJECT,
    projectId: "4242",
    insights: [77],
    hogql: (query, values) =>
      query.includes("toDate(timestamp)")
        ? {
            columns: ["day", "count"],
            results: [
              ["2026-11-20", 61],
              ["2026-11-21", 48],
            ].filter(() => values.event === "user signed up"),
          }
        : { columns: ["event", "count()"], results: [["$pageview", 1200]] },
  });
});
afterAll(() => ph.close());

async function posthogTools(config: Record<string, unknown>) {
  const project = pluginProject(PLUGIN_DIR, "posthog", config, {
    POSTHOG_PERSONAL_API_KEY: PERSONAL,
    POSTHOG_PROJECT_API_KEY: PROJECT,
  });
  const r = await loadTools({ ...project, autoInstall: false, log: () => {} });
  const index = indexToolTree(r.tree);
  const call = (path: string, input: unknown) => runLoadedTool(index.get(`posthog.${path}`), path, input);
  return { r, call };
}

const good = () => ({
  personalApiKey: "${POSTHOG_PERSONAL_API_KEY}",
  projectApiKey: "${POSTHOG_PROJECT_API_KEY}",
  projectId: "4242",
  host: ph.url,
  ingestHost: ph.url,
});

describe("posthog plugin against a fake PostHog that enforces the documented API rules", () => {
  test("loads with its config validated; reads are auto, writes need approval", async () => {
    const { r } = await posthogTools(good());
    expect(r.diagnostics).toEqual([]);
    expect(Object.fromEntries(r.entries[0]!.tools.map((t) => [t.path, t.approval]))).toEqual({
      "posthog.alerts.create": "required",
      "posthog.alerts.list": "auto",
      "posthog.events.capture": "required",
      "posthog.query.dailyCounts": "auto",
      "posthog.query.hogql": "auto",
    });
  });

  test("queries, alerts and capture do what they say and every request is one PostHog accepts", async () => {
    const { call } = await posthogTools(good());
    expect(await call("query.dailyCounts", { event: "user signed up", days: 7 })).toEqual([
      { day: "2026-11-20", count: 61 },
      { day: "2026-11-21", count: 48 },
    ]);
    // The event name travels as a placeholder value, not inside the SQL.
    expect(ph.queries.at(-1)!.values).toEqual({ event: "user signed up", days: 7 });
    expect(ph.queries.at(-1)!.query).not.toContain("user signed up");
    expect(await call("query.hogql", { query: "SELECT event, count() FROM events GROUP BY event" })).toEqual([
      { event: "$pageview", "count()": 1200 },
    ]);

    expect(
      await call("alerts.create", { name: "Signups below 50/day", insightId: 77, lower: 50, subscribedUserIds: [1] }),
    ).toMatchObject({ name: "Signups below 50/day", state: "Not firing" });
    expect(ph.alerts[0]).toMatchObject({
      insight: 77,
      calculation_interval: "daily",
      threshold: { configuration: { type: "absolute", bounds: { lower: 50 } } },
    });
    expect(await call("alerts.list", {})).toEqual([
      expect.objectContaining({ name: "Signups below 50/day", insight: 77 }),
    ]);

    expect(
      await call("events.capture", {
        event: "assistant_test",
        distinctId: "user-1",
        properties: { via: "openassistant" },
      }),
    ).toEqual({ captured: "assistant_test" });
    expect(ph.events).toEqual([
      { event: "assistant_test", distinct_id: "user-1", properties: { via: "openassistant" } },
    ]);
    expect(ph.violations).toEqual([]);
  });

  test("errors PostHog returns reach the model as the tool's error with PostHog's detail", async () => {
    const { call } = await posthogTools(good());
    await expect(
      call("alerts.create", { name: "x", insightId: 999, upper: 5, subscribedUserIds: [1] }),
    ).rejects.toThrow(/PostHog answered 400: Invalid pk "999" - object does not exist. \(insight\)/);
    await expect(call("query.hogql", { query: "SELECT {missing}" })).rejects.toThrow(
      /Placeholder \{missing\} is not defined/,
    );
    const { call: wrongKey } = await posthogTools({ ...good(), personalApiKey: "phx_wrong" });
    await expect(wrongKey("alerts.list", {})).rejects.toThrow(/401: Authentication credentials were not provided/);
    expect(ph.violations.map((v) => v.problem)).toEqual([
      expect.stringContaining("does_not_exist"),
      expect.stringContaining("query_error"),
      expect.stringContaining("not_authenticated"),
    ]);
    ph.violations.length = 0;
  });

  test("the fake rejects what PostHog would reject", async () => {
    const before = ph.violations.length;
    const post = (path: string, body: unknown, auth = true) =>
      fetch(`${ph.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(auth ? { authorization: `Bearer ${PERSONAL}` } : {}) },
        body: JSON.stringify(body),
      });
    expect((await post("/api/projects/4242/query", { query: { kind: "HogQLQuery", query: "SELECT 1" } })).status).toBe(
      404,
    ); // no trailing slash
    expect((await post("/api/projects/4242/query/", { query: { kind: "HogQLQuery" } })).status).toBe(400);
    expect((await post("/i/v0/e/", { api_key: PROJECT, event: "x" }, false)).status).toBe(400); // no distinct_id
    expect((await post("/i/v0/e/", { api_key: PERSONAL, event: "x", distinct_id: "u" }, false)).status).toBe(401); // a personal key cannot capture
    // Alerts: what the Alert serializer's schema refuses (https://posthog.com/docs/api/alerts).
    const alert = {
      insight: 77,
      subscribed_users: [1],
      threshold: { configuration: { type: "absolute", bounds: { lower: 50 } } },
    };
    const create = (body: unknown) => post("/api/projects/4242/alerts/", body).then((r) => r.status);
    expect(await create({ ...alert, threshold: { configuration: { type: "absolute", bounds: { below: 50 } } } })).toBe(
      400,
    ); // bounds take lower and upper only
    expect(await create({ ...alert, threshold: { configuration: { type: "count", bounds: { lower: 1 } } } })).toBe(400);
    expect(await create({ insight: 77, threshold: alert.threshold })).toBe(400); // subscribed_users is required
    expect(await create({ ...alert, subscribed_users: [999] })).toBe(400); // no such user
    expect(await create({ ...alert, condition: { type: "absolute_value", below: 1 } })).toBe(400);
    expect(await create({ ...alert, config: { check_ongoing_interval: true } })).toBe(400); // series_index required
    expect(ph.violations.length - before).toBe(10);
    ph.violations.length = before;
    // What the schema allows is accepted: no name, no condition, bounds left out; the answer
    // carries the insight and users as objects, as PostHog's does.
    const res = await post("/api/projects/4242/alerts/", {
      ...alert,
      threshold: { configuration: { type: "percentage" } },
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ insight: { id: 77 }, subscribed_users: [{ id: 1 }], condition: null });
    expect(ph.violations.length).toBe(before);
    ph.alerts.pop();
  });

  test("a bad config is reported before import, naming the field", async () => {
    const { r } = await posthogTools({ personalApiKey: "x", projectId: "not-a-number" });
    expect(r.entries[0]!.status).toBe("error");
    expect(r.diagnostics[0]!.message).toContain("config.posthog.projectId");
  });

  test("the manifest's JSON Schema and the plugin's zod config agree", async () => {
    const manifest = await Bun.file(join(PLUGIN_DIR, "openassistant.json")).json();
    const mod = (await import("./index.ts")).default;
    const fromZod = z.toJSONSchema(mod.config!, { io: "input" }) as {
      properties: Record<string, unknown>;
      required?: string[];
    };
    expect(Object.keys(fromZod.properties).sort()).toEqual(Object.keys(manifest.configSchema.properties).sort());
    expect(fromZod.required ?? []).toEqual(manifest.configSchema.required);
  });
});

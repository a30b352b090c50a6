import { afterEach, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { startHarness, type Harness } from "../../test/harness.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function readSse(res: Response, until: (events: Array<{ event: string; data: any }>) => boolean) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  const events: Array<{ event: string; data: any }> = [];
  while (!until(events)) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    let i: number;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const chunk = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const event = /^event: (.*)$/m.exec(chunk)?.[1];
      const data = /^data: (.*)$/m.exec(chunk)?.[1];
      if (event && data) events.push({ event, data: JSON.parse(data) });
    }
  }
  await reader.cancel();
  return events;
}

describe("local HTTP API", () => {
  test("binds 127.0.0.1, requires the bearer token, serves health, runs, receipts and SSE events", async () => {
    h = await startHarness({ settings: { http: { port: 0 } } });
    const http = h.gateway.http!;
    expect(http.url).toStartWith("http://127.0.0.1:");
    expect(http.tokenCreated).toBe(true);
    expect(statSync(http.tokenPath!).mode & 0o777).toBe(0o600);
    const auth = { authorization: `Bearer ${http.token}` };

    for (const path of ["/health", "/receipts", "/events", "/runs/x"]) {
      expect((await fetch(`${http.url}${path}`)).status).toBe(401);
      expect((await fetch(`${http.url}${path}`, { headers: { authorization: "Bearer wrong" } })).status).toBe(401);
    }
    const health = (await (await fetch(`${http.url}/health`, { headers: auth })).json()) as any;
    expect(health).toMatchObject({ ok: true, tools: 3, activeTurns: 0 });

    const sse = await fetch(`${http.url}/events`, { headers: auth });
    expect(sse.headers.get("content-type")).toBe("text/event-stream");
    const collected = readSse(sse, (evs) => evs.some((e) => e.event === "turn.finished"));

    h.api.script([
      toolUseTurn({
        id: "toolu_1",
        name: "execute",
        input: {
          code: "await tools.reminders.list({}); try { await tools.mail.send({ to: 'a', body: 'b' }); } catch {} return 1;",
        },
      }),
      textTurn("Listed; the mail failed."),
    ]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "http", surface: "terminal", text: "go" });
    const events = await collected;
    const types = events.map((e) => e.event);
    expect(types).toContain("turn.started");
    expect(types).toContain("run.started");
    expect(types.filter((t) => t === "call.settled")).toHaveLength(2);
    expect(types.at(-1)).toBe("turn.finished");

    const runId = outcome.runIds[0]!;
    const run = (await (await fetch(`${http.url}/runs/${runId}`, { headers: auth })).json()) as any;
    expect(run.receipts).toHaveLength(6);
    expect(run.integrity).toEqual({ ok: true });
    expect(run.summaryText).toContain("❌ mail.send failed");
    expect((await fetch(`${http.url}/runs/nope`, { headers: auth })).status).toBe(404);

    const failed = (await (await fetch(`${http.url}/receipts?status=failed`, { headers: auth })).json()) as any;
    expect(failed.receipts.map((r: { toolPath: string; phase: string }) => `${r.toolPath}:${r.phase}`)).toEqual([
      "mail.send:requested",
      "mail.send:started",
      "mail.send:failed",
    ]);
    const byTool = (await (
      await fetch(`${http.url}/receipts?tool=reminders.*&run=${runId}`, { headers: auth })
    ).json()) as any;
    expect(byTool.count).toBe(3);
    const future = (await (
      await fetch(`${http.url}/receipts?since=${Date.now() + 60_000}`, { headers: auth })
    ).json()) as any;
    expect(future.count).toBe(0);
    expect((await fetch(`${http.url}/receipts?status=bogus`, { headers: auth })).status).toBe(400);
  });

  test("a configured token is used as is and the port is closed on shutdown", async () => {
    h = await startHarness({ settings: { http: { port: 0, token: "configured-token-123456" } } });
    const http = h.gateway.http!;
    expect(http.tokenCreated).toBe(false);
    expect(
      (await fetch(`${http.url}/health`, { headers: { authorization: "Bearer configured-token-123456" } })).status,
    ).toBe(200);
    await h.gateway.shutdown();
    await expect(fetch(`${http.url}/health`)).rejects.toThrow();
  });

  test("bad input never drops the connection: malformed run ids, bad query params, unknown routes, wrong tokens", async () => {
    h = await startHarness({ settings: { http: { port: 0 } } });
    const http = h.gateway.http!;
    const auth = { authorization: `Bearer ${http.token}` };
    const get = async (path: string, headers: Record<string, string> = auth) => {
      const res = await fetch(`${http.url}${path}`, { headers });
      return { status: res.status, body: (await res.json()) as { error?: string } };
    };
    // A malformed percent-encoding used to throw in the handler: Bun reset the connection.
    for (const path of ["/runs/%E0%A4%A", "/runs/%"]) {
      const res = await get(path);
      expect(res.status).toBe(400);
      expect(res.body.error).toContain("percent-encoding");
    }
    for (const path of [
      "/receipts?since=abc",
      "/receipts?since=2024-13-45",
      "/receipts?limit=999999999999",
      "/receipts?limit=1.5",
      "/receipts?limit=0",
      "/receipts?limit=abc",
    ])
      expect((await get(path)).status).toBe(400);
    expect((await get("/receipts?tool=%5B&limit=")).body).toEqual({ count: 0, receipts: [] } as never);
    expect((await get("/nope")).status).toBe(404);
    expect((await get("/health", { authorization: `Basic ${http.token}` })).status).toBe(401);
    expect((await get("/health", { authorization: http.token })).status).toBe(401);
    expect((await fetch(`${http.url}/health`, { method: "POST", headers: auth })).status).toBe(405);

    // A failing store is a 500 with a JSON error, not a reset connection.
    h.gateway.db!.close();
    const broken = await get("/receipts");
    expect(broken.status).toBe(500);
    expect(broken.body.error).toStartWith("internal error:");
  });

  test("an SSE client that disconnects is unsubscribed from the event bus", async () => {
    h = await startHarness({ settings: { http: { port: 0 } } });
    const http = h.gateway.http!;
    const before = h.gateway.events.listenerCount;
    const controller = new AbortController();
    const sse = await fetch(`${http.url}/events`, {
      headers: { authorization: `Bearer ${http.token}` },
      signal: controller.signal,
    });
    const reader = sse.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain(": connected");
    expect(h.gateway.events.listenerCount).toBe(before + 1);
    controller.abort();
    for (let i = 0; i < 100 && h.gateway.events.listenerCount > before; i++) await Bun.sleep(10);
    expect(h.gateway.events.listenerCount).toBe(before);
  });
});

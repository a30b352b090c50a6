import { afterEach, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { startHarness, type Harness } from "../testing/harness.ts";

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
      toolUseTurn({ id: "toolu_1", name: "execute", input: { code: "await tools.reminders.list({}); try { await tools.mail.send({ to: 'a', body: 'b' }); } catch {} return 1;" } }),
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
    expect(failed.receipts.map((r: { toolPath: string; phase: string }) => `${r.toolPath}:${r.phase}`)).toEqual(["mail.send:requested", "mail.send:started", "mail.send:failed"]);
    const byTool = (await (await fetch(`${http.url}/receipts?tool=reminders.*&run=${runId}`, { headers: auth })).json()) as any;
    expect(byTool.count).toBe(3);
    const future = (await (await fetch(`${http.url}/receipts?since=${Date.now() + 60_000}`, { headers: auth })).json()) as any;
    expect(future.count).toBe(0);
    expect((await fetch(`${http.url}/receipts?status=bogus`, { headers: auth })).status).toBe(400);
  });

  test("a configured token is used as is and the port is closed on shutdown", async () => {
    h = await startHarness({ settings: { http: { port: 0, token: "configured-token-123456" } } });
    const http = h.gateway.http!;
    expect(http.tokenCreated).toBe(false);
    expect((await fetch(`${http.url}/health`, { headers: { authorization: "Bearer configured-token-123456" } })).status).toBe(200);
    await h.gateway.shutdown();
    await expect(fetch(`${http.url}/health`)).rejects.toThrow();
  });
});

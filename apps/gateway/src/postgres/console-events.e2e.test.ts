import { afterEach, expect, test } from "bun:test";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { connectPostgres } from "@openassistant/core/db";
import { receiptKeyPath } from "@openassistant/core/receipts";
import { textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { type Harness, startHarness } from "../../test/harness.ts";
import { CONSOLE_LIVE_TYPES } from "../events/other-gateways.ts";
import type { GatewayEvent } from "../events/types.ts";
import { CONSOLE_SIGNALS_CHANNEL } from "../storage/postgres/backend.ts";

const pg = usePostgres();
const OPS = "111111111111111111";
const SECRET = "sk-live-replica-secret-0123456789";

let harnesses: Harness[] = [];
let closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers) await close();
  for (const h of harnesses) await h.close();
  harnesses = [];
  closers = [];
});

/** Two gateways on one database (the second in its own project folder, with the first's receipt key). */
async function twoGateways() {
  const url = await pg.freshDatabase();
  const settings = { storageUrl: url, http: { port: 0, approvers: [OPS] }, secrets: [SECRET] };
  const a = await startHarness({ settings });
  harnesses.push(a);
  const dir = makeTempDir("oa-gw-pg-b-");
  mkdirSync(join(dir, "config"), { recursive: true });
  copyFileSync(receiptKeyPath(a.configDir), receiptKeyPath(join(dir, "config")));
  const b = await startHarness({ settings, dir });
  harnesses.push(b);
  return { url, a, b };
}

/** Signs `operator` in to `h`'s console through a login link; the session cookie. */
async function signIn(h: Harness, operator: string): Promise<string> {
  const res = await fetch(h.gateway.console!.loginLink(operator), { redirect: "manual" });
  const cookie = /oa_console=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1];
  if (!cookie) throw new Error(`no session cookie (status ${res.status})`);
  return `oa_console=${cookie}`;
}

const get = (h: Harness, path: string, cookie: string) =>
  fetch(`${h.gateway.http!.url}${path}`, { headers: { cookie, origin: h.gateway.http!.url } });

/** The console's SSE stream of `h`, read as it comes: `until(type)` resolves once that event arrived. */
async function consoleStream(h: Harness, cookie: string) {
  const res = await get(h, "/console/events", cookie);
  expect(res.headers.get("content-type")).toBe("text/event-stream");
  const reader = res.body!.getReader();
  closers.push(() => reader.cancel());
  const decoder = new TextDecoder();
  let text = "";
  const types = () => [...text.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]!);
  const until = async (done: () => boolean) => {
    while (!done()) {
      const { value, done: ended } = await reader.read();
      if (ended) throw new Error(`the stream ended before the wait was over; it had: ${text}`);
      text += decoder.decode(value, { stream: true });
    }
  };
  return { text: () => text, types, until, untilType: (type: string) => until(() => types().includes(type)) };
}

test("a run on gateway A shows live in gateway B's console stream; B's pending list follows a decision made on A; no secret crosses", async () => {
  const { url, a, b } = await twoGateways();
  // Everything published on the channel, as any listener on the database sees it.
  const listener = connectPostgres(url, { max: 1 });
  closers.push(() => listener.close());
  const payloads: string[] = [];
  const listening = await listener.listen(CONSOLE_SIGNALS_CHANNEL, (payload) => payloads.push(payload));
  closers.push(() => listening.unlisten());
  // What B itself produces: nothing here, every event B's console streams comes from A.
  const producedOnB: GatewayEvent["type"][] = [];
  b.gateway.events.subscribe((e) => producedOnB.push(e.type));

  const cookie = await signIn(b, OPS);
  const stream = await consoleStream(b, cookie);
  await stream.until(() => stream.text().includes(": connected"));
  expect(await (await get(b, "/console/approvals/count", cookie)).text()).toBe("0");

  a.api.script([
    toolUseTurn({
      id: "toolu_1",
      name: "execute",
      input: { code: `return await tools.reminders.create({ text: "pay with ${SECRET}", at: "9:00" });` },
    }),
    textTurn("Reminder set."),
  ]);
  const requested = new Promise<string>((ok) =>
    a.gateway.events.subscribe((e) => e.type === "approval.requested" && ok(e.request.callId)),
  );
  const turn = a.gateway.handleMessage({ sessionKey: "replica-live", surface: "terminal", text: "remind me" });

  // The approval A asks for shows in B's console: its stream says so, its pending list has it.
  await stream.untilType("approval.requested");
  const callId = await requested;
  expect(await (await get(b, "/console/approvals/count", cookie)).text()).toBe("1");
  expect(await (await get(b, "/console/approvals", cookie)).text()).toContain("reminders.create");

  // Decided on A (as A's Discord card would): B's console hears it, and its pending list is empty again.
  await a.gateway.approvals.decide(callId, { decision: "approved", by: OPS });
  await stream.untilType("approval.decided");
  expect(await (await get(b, "/console/approvals/count", cookie)).text()).toBe("0");

  // The run goes on on A; its end reaches B, and B reads the run's receipts, committed before the signal.
  await stream.untilType("run.finished");
  const [run] = await b.gateway.receipts.runs();
  expect((await b.gateway.receipts.byRun(run!.runId)).map((r) => r.phase)).toEqual([
    "requested",
    "approved",
    "started",
    "succeeded",
  ]);
  expect((await turn).stopReason).toBe("answered");
  await stream.untilType("call.settled");
  expect(stream.types()).toEqual(expect.arrayContaining(["run.started", "call.settled", "run.finished"]));
  expect(a.calls).toEqual([`reminders.create:pay with ${SECRET}`]);
  expect(b.calls).toEqual([]);
  expect(producedOnB.filter((t) => (CONSOLE_LIVE_TYPES as readonly string[]).includes(t))).toEqual([]);

  // Only kinds of event cross: never the code, the input (with its secret) or the answer.
  expect(payloads.length).toBeGreaterThan(0);
  for (const payload of payloads) {
    expect(payload).not.toContain(SECRET);
    const { e } = JSON.parse(payload) as { e: { types: string[] } };
    expect(Object.keys(e)).toEqual(["types"]);
    for (const type of e.types) expect(CONSOLE_LIVE_TYPES as readonly string[]).toContain(type);
  }
  expect(stream.text()).not.toContain(SECRET);
  expect(stream.text()).not.toContain("pay with");
}, 30_000);

test("a gateway's own events reach its console once (not echoed back); a signal from elsewhere passes only known kinds", async () => {
  const { url, a } = await twoGateways();
  const listener = connectPostgres(url, { max: 1 });
  closers.push(() => listener.close());
  const payloads: string[] = [];
  let heard: (() => void) | undefined;
  const listening = await listener.listen(CONSOLE_SIGNALS_CHANNEL, (payload) => {
    payloads.push(payload);
    heard?.();
  });
  closers.push(() => listening.unlisten());
  const cookie = await signIn(a, OPS);
  const stream = await consoleStream(a, cookie);
  await stream.until(() => stream.text().includes(": connected"));
  const producedOnA: string[] = [];
  a.gateway.events.subscribe((e) => producedOnA.push(e.type));
  a.api.script([
    toolUseTurn({ id: "toolu_2", name: "execute", input: { code: "return await tools.reminders.list({});" } }),
    textTurn("One reminder."),
  ]);
  const outcome = await a.gateway.handleMessage({ sessionKey: "own", surface: "terminal", text: "list" });
  expect(outcome.stopReason).toBe("answered");
  // A's signal for run.finished went out on the database...
  while (!payloads.some((p) => p.includes("run.finished"))) await new Promise<void>((ok) => (heard = ok));
  // ...then another sender's, which every listener gets after it (one queue, in commit order), with
  // kinds no gateway sends: only the known kind reaches the stream.
  await listener.notify(
    CONSOLE_SIGNALS_CHANNEL,
    JSON.stringify({ o: "gw_elsewhere", e: { types: ["approval.requested", "model.text", "<script>"] } }),
  );
  await stream.untilType("approval.requested");
  expect(producedOnA).toEqual(expect.arrayContaining(["run.started", "call.settled", "run.finished"]));
  expect(stream.types()).toEqual([...producedOnA, "approval.requested"]);
  expect(stream.text()).not.toContain("<script>");
}, 30_000);

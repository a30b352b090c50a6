/**
 * The console asks on every request whether the session's operator is still an approver: one
 * removed from `http.approvers` (the gateway restarted on the changed config; the console key, and
 * so their signed session cookie, stays valid) sees nothing and decides nothing.
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { startHarness, type Harness } from "../../test/harness.ts";

setDefaultTimeout(30_000);
const OPS = "111111111111111111";
const OTHER = "222222222222222222";

let h: Harness | undefined;
afterAll(() => h?.close());

async function pendingCall(gateway: Harness["gateway"], text: string): Promise<string> {
  h!.api.script([
    toolUseTurn({
      id: `toolu_${text}`,
      name: "execute",
      input: { code: `return await tools.reminders.create({ text: "${text}", at: "now" });` },
    }),
    textTurn("Done."),
  ]);
  void gateway.handleMessage({ sessionKey: `t-${text}`, surface: "terminal", text }).catch(() => undefined);
  for (let i = 0; i < 2000; i++) {
    const found = (await gateway.approvals.pending()).find((r) => r.toolPath === "reminders.create");
    if (found) return found.callId;
    await Bun.sleep(10);
  }
  throw new Error(`no approval was requested for ${text}`);
}

/** Signs in through a login link, as the browser does; returns the session cookie. */
async function signIn(operator: string): Promise<string> {
  const res = await fetch(h!.gateway.console!.loginLink(operator), { redirect: "manual" });
  expect(res.status).toBe(200);
  const cookie = /oa_console=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1];
  if (!cookie) throw new Error("no session cookie");
  return cookie;
}

function request(path: string, cookie: string, method = "GET") {
  const base = h!.gateway.http!.url;
  return fetch(`${base}${path}`, {
    method,
    redirect: "manual",
    headers: { origin: base, cookie: `oa_console=${cookie}` },
  });
}

test("an operator removed from http.approvers cannot see or decide with the session they already hold", async () => {
  const settings = { http: { port: 0, approvers: [OPS, OTHER] } };
  h = await startHarness({ settings });
  const session = await signIn(OPS);
  expect((await request("/console/approvals", session)).status).toBe(200);

  // The operator is taken out of the config; the gateway starts again on it.
  settings.http.approvers = [OTHER];
  await h.restart();
  const callId = await pendingCall(h.gateway, "after-removal");

  const decide = await request(`/console/approvals/${callId}/approve`, session, "POST");
  expect(decide.status).toBe(403);
  expect(await decide.text()).toContain("not allowed to decide approvals");
  const list = await request("/console/approvals", session);
  expect(list.status).toBe(403);
  expect(await list.text()).not.toContain(callId);
  expect((await request("/console/runs", session)).status).toBe(403);
  expect((await h.gateway.approvals.get(callId))?.status).toBe("pending");
  expect(h.calls).toEqual([]);

  // Whoever is still an approver decides as before.
  const other = await signIn(OTHER);
  const approved = await request(`/console/approvals/${callId}/approve`, other, "POST");
  expect(approved.status).toBe(303);
  expect((await h.gateway.approvals.get(callId))?.decision).toMatchObject({
    decision: "approved",
    by: `console:${OTHER}`,
  });
});

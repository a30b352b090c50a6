import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { startHarness, type Harness } from "../../test/harness.ts";
import { createSigner, loadConsoleKey } from "./signing.ts";

// The console's guards seen from outside, with plain HTTP requests (no browser): which origins may
// post a decision, which signed tokens open what, and what the session cookie is allowed to do.
// console.e2e.test.ts covers the same routes in a real browser.
setDefaultTimeout(30_000);

const APPROVER = "111111111111111111";
const STRANGER = "999999999999999999";
const PUBLIC = "https://assistant.example";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const start = (publicUrl?: string) =>
  startHarness({ settings: { http: { port: 0, approvers: [APPROVER], ...(publicUrl ? { publicUrl } : {}) } } });

function signerOf(harness: Harness, now: () => number = Date.now) {
  return createSigner(loadConsoleKey(join(harness.dir, ".openassistant", "data"), { add() {} }), now);
}

function session(harness: Harness, operator = APPROVER, exp = Date.now() + 60_000): string {
  return signerOf(harness).sign({ kind: "session", operator, exp });
}

/** A decision posted for a call nobody is waiting on: 403 when refused, else a 303 back to the list. */
async function decide(harness: Harness, headers: Record<string, string>, cookie = session(harness)) {
  const res = await fetch(`${harness.gateway.http!.url}/console/approvals/call_nobody_waits/approve`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: `oa_console=${cookie}`, ...headers },
  });
  return { status: res.status, location: res.headers.get("location"), text: await res.text() };
}

describe("console: a decision is accepted only from the console's own origin (scheme, host and port)", () => {
  test("the server's own origin is accepted; another port, scheme or host on the same machine is refused", async () => {
    h = await start();
    const own = new URL(h.gateway.http!.url);
    expect(await decide(h, { origin: own.origin })).toMatchObject({
      status: 303,
      location: "/console/approvals?notice=unknown",
    });
    const otherPort = `http://127.0.0.1:${own.port === "1" ? 2 : Number(own.port) - 1}`;
    for (const origin of [
      otherPort,
      `https://127.0.0.1:${own.port}`,
      `http://localhost:${own.port}`,
      "http://127.0.0.1",
      "null",
    ]) {
      const refused = await decide(h, { origin });
      expect({ origin, status: refused.status }).toEqual({ origin, status: 403 });
      expect(refused.text).toContain("Cross-site form posts are refused");
    }
  });

  test("without an Origin header, a request the browser marks cross-site is refused; same-origin is accepted", async () => {
    h = await start();
    expect((await decide(h, { "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await decide(h, { "sec-fetch-site": "same-origin" })).status).toBe(303);
  });

  test("behind a proxy: the public URL's origin is accepted, the same host on another port or scheme is not", async () => {
    h = await start(PUBLIC);
    expect((await decide(h, { origin: PUBLIC })).status).toBe(303);
    for (const origin of [`${PUBLIC}:8443`, "http://assistant.example", "https://evil.example"])
      expect({ origin, status: (await decide(h, { origin })).status }).toEqual({ origin, status: 403 });
  });
});

describe("console: signed tokens open only what they were signed for", () => {
  test("the session cookie: an expired, tampered, login or receipt-link token is no session; a stranger's session decides nothing", async () => {
    h = await start();
    const origin = { origin: new URL(h.gateway.http!.url).origin };
    const signer = signerOf(h);
    const expired = signer.sign({ kind: "session", operator: APPROVER, exp: Date.now() - 1_000 });
    expect((await decide(h, origin, expired)).status).toBe(401);
    const good = session(h);
    const [body, sig] = good.split(".") as [string, string];
    const forgedBody = Buffer.from(
      JSON.stringify({ kind: "session", operator: APPROVER, exp: Date.now() + 3_600_000 }),
    ).toString("base64url");
    expect((await decide(h, origin, `${forgedBody}.${sig}`)).status).toBe(401);
    expect((await decide(h, origin, `${body}.${sig.slice(0, -1)}${sig.endsWith("A") ? "B" : "A"}`)).status).toBe(401);
    const login = signer.sign({ kind: "login", operator: APPROVER, exp: Date.now() + 60_000 });
    expect((await decide(h, origin, login)).status).toBe(401);
    const runLink = signer.sign({ kind: "run", runId: "run_x", exp: Date.now() + 60_000 });
    expect((await decide(h, origin, runLink)).status).toBe(401);
    const stranger = await decide(h, origin, session(h, STRANGER));
    expect(stranger.status).toBe(403);
    expect(stranger.text).toContain("not allowed to decide approvals");
    expect((await decide(h, origin, good)).status).toBe(303);
  });

  test("a login link signs in only an approver, only while fresh, only as a login grant; the cookie is HttpOnly and SameSite=Strict", async () => {
    h = await start();
    const base = h.gateway.http!.url;
    const signer = signerOf(h);
    const open = (t: string) => fetch(`${base}/console/login?t=${t}`, { redirect: "manual" });

    const ok = await open(signer.sign({ kind: "login", operator: APPROVER, exp: Date.now() + 60_000 }));
    expect(ok.status).toBe(200);
    const cookie = ok.headers.get("set-cookie")!;
    expect(cookie).toStartWith("oa_console=");
    expect(cookie).toContain("; Path=/console");
    expect(cookie).toContain("; HttpOnly");
    expect(cookie).toContain("; SameSite=Strict");
    expect(cookie).toMatch(/; Max-Age=43200(;|$)/);
    const issued = signer.check(/^oa_console=([^;]+)/.exec(cookie)![1]);
    expect(issued.ok && issued.grant).toMatchObject({ kind: "session", operator: APPROVER });
    // The session itself ends after 12 hours, whatever the browser does with Max-Age.
    const sessionExp = issued.ok ? issued.grant.exp : 0;
    expect(sessionExp).toBeGreaterThan(Date.now() + 12 * 3_600_000 - 60_000);
    expect(sessionExp).toBeLessThan(Date.now() + 12 * 3_600_000 + 60_000);

    const expired = await open(signer.sign({ kind: "login", operator: APPROVER, exp: Date.now() - 1_000 }));
    expect(expired.status).toBe(401);
    expect(await expired.text()).toContain("This login link has expired");
    expect(expired.headers.get("set-cookie")).toBeNull();
    for (const t of [
      signer.sign({ kind: "session", operator: APPROVER, exp: Date.now() + 60_000 }),
      signer.sign({ kind: "run", runId: "run_x", exp: Date.now() + 60_000 }),
    ]) {
      const refused = await open(t);
      expect(refused.status).toBe(401);
      expect(refused.headers.get("set-cookie")).toBeNull();
    }
    // The gateway's own login links last 15 minutes.
    const made = signer.check(new URL(h.gateway.console!.loginLink(APPROVER)).searchParams.get("t"));
    const loginExp = made.ok ? made.grant.exp : 0;
    expect(loginExp).toBeGreaterThan(Date.now() + 15 * 60_000 - 60_000);
    expect(loginExp).toBeLessThan(Date.now() + 15 * 60_000 + 60_000);
    const stranger = await open(signer.sign({ kind: "login", operator: STRANGER, exp: Date.now() + 60_000 }));
    expect(stranger.status).toBe(403);
    expect(stranger.headers.get("set-cookie")).toBeNull();
  });

  test("a receipt link opens its own run only, until it expires; it is not a session for the rest of the console", async () => {
    h = await start();
    h.api.script([
      toolUseTurn({ id: "toolu_1", name: "execute", input: { code: "return await tools.reminders.list({});" } }),
      textTurn("One reminder."),
    ]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "t", surface: "terminal", text: "list" });
    const runId = outcome.runIds[0]!;
    const base = h.gateway.http!.url;
    const link = new URL(h.gateway.console!.callLink(runId, "c1"));
    expect(link.origin).toBe(base);
    const t = link.searchParams.get("t")!;
    const granted = signerOf(h).check(t);
    // Signed for this run, for seven days (a clock a minute either side of the signing).
    expect(granted.ok && granted.grant.kind === "run" && granted.grant.runId).toBe(runId);
    const exp = granted.ok ? granted.grant.exp : 0;
    expect(exp).toBeGreaterThan(Date.now() + 7 * 24 * 3_600_000 - 60_000);
    expect(exp).toBeLessThan(Date.now() + 7 * 24 * 3_600_000 + 60_000);

    expect((await fetch(link)).status).toBe(200);
    expect((await fetch(`${base}/console/runs/run_other?t=${t}`)).status).toBe(401);
    expect((await fetch(`${base}/console/runs?t=${t}`)).status).toBe(401);
    expect((await fetch(`${base}/console/runs/${runId}`)).status).toBe(401);
    const later = signerOf(h, () => Date.now() + 7 * 24 * 3_600_000 + 60_000);
    expect(later.check(t)).toEqual({ ok: false, reason: "expired" });
    const past = signerOf(h).sign({ kind: "run", runId, exp: Date.now() - 1_000 });
    const gone = await fetch(`${base}/console/runs/${runId}?t=${past}`);
    expect(gone.status).toBe(410);
    expect(await gone.text()).toContain("expired");
  });
});

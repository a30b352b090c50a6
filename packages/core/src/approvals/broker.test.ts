import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit";
import { openDatabase } from "../db/open.ts";
import { createApprovalBroker, type ApprovalEvent } from "./broker.ts";
import { openSqliteApprovals } from "./sqlite/open.ts";
import type { ApprovalRequest } from "./types.ts";

const dbFile = () => join(makeTempDir("oa-approvals-"), "gateway.sqlite");

function request(callId: string, over: Partial<ApprovalRequest> = {}): ApprovalRequest {
  const now = Date.now();
  return {
    callId,
    runId: "run_1",
    sessionId: "sess_1",
    toolPath: "calendar.create",
    description: "Create a calendar event",
    inputPreview: '{"title":"dentist"}',
    code: "await tools.calendar.create({ title: 'dentist' })",
    requestedBy: "user_1",
    requestedAt: now,
    expiresAt: now + 60_000,
    ...over,
  };
}

const never = () => new AbortController().signal;

describe("approval broker", () => {
  test("persists the request before notifying, then resolves with the operator's approval", async () => {
    const db = openDatabase(dbFile());
    const broker = createApprovalBroker({ ...openSqliteApprovals(db), defaultTimeoutMs: 60_000 });
    const events: ApprovalEvent[] = [];
    // At notification time the row is already in the database (read then, checked below).
    const atNotification: Array<ReturnType<typeof broker.get>> = [];
    broker.subscribe((e) => {
      if (e.type === "requested") atNotification.push(broker.get(e.request.callId));
      events.push(e);
    });
    const pending = broker.requestApproval(request("call_1"), never());
    expect((await broker.pending()).map((r) => r.callId)).toEqual(["call_1"]);
    const result = await broker.decide("call_1", { decision: "approved", by: "alice" });
    expect(result).toMatchObject({ outcome: "decided", decision: { decision: "approved", by: "alice" } });
    expect(await pending).toEqual({ decision: "approved", by: "alice" });
    expect(events.map((e) => e.type)).toEqual(["requested", "decided"]);
    expect((await atNotification[0])?.status).toBe("pending");
    expect(await broker.get("call_1")).toMatchObject({
      status: "approved",
      decision: { decision: "approved", by: "alice" },
    });
    expect(await broker.pending()).toEqual([]);
    await broker.close();
    db.close();
  });

  test("a denial carries its reason to the caller and the row", async () => {
    const db = openDatabase(dbFile());
    const broker = createApprovalBroker({ ...openSqliteApprovals(db), defaultTimeoutMs: 60_000 });
    const pending = broker.requestApproval(request("call_2"), never());
    await broker.decide("call_2", { decision: "denied", by: "bob", reason: "wrong calendar" });
    expect(await pending).toEqual({ decision: "denied", by: "bob", reason: "wrong calendar" });
    expect((await broker.get("call_2"))!.decision).toEqual({ decision: "denied", by: "bob", reason: "wrong calendar" });
    await broker.close();
    db.close();
  });

  test("no decision in time is a denial by timeout; the default timeout applies when the request has none", async () => {
    const db = openDatabase(dbFile());
    const broker = createApprovalBroker({ ...openSqliteApprovals(db), defaultTimeoutMs: 40 });
    const decided: ApprovalEvent[] = [];
    broker.subscribe((e) => e.type === "decided" && decided.push(e));
    const now = Date.now();
    const viaRequest = broker.requestApproval(request("call_t1", { requestedAt: now, expiresAt: now + 30 }), never());
    const viaDefault = broker.requestApproval(request("call_t2", { requestedAt: now, expiresAt: 0 }), never());
    expect(await viaRequest).toEqual({ decision: "denied", by: "timeout", reason: "no decision within 0.03s" });
    expect(await viaDefault).toEqual({ decision: "denied", by: "timeout", reason: "no decision within 0.04s" });
    expect((await broker.get("call_t2"))!.request.expiresAt).toBe(now + 40);
    expect(decided.length).toBe(2);
    // The click that arrives after the timeout is harmless and reports what happened.
    expect(await broker.decide("call_t1", { decision: "approved", by: "alice" })).toMatchObject({
      outcome: "already-decided",
      decision: { decision: "denied", by: "timeout" },
    });
    await broker.close();
    db.close();
  });

  test("timeout reason states the window in seconds", async () => {
    const db = openDatabase(":memory:");
    const broker = createApprovalBroker({ ...openSqliteApprovals(db), defaultTimeoutMs: 60_000 });
    const now = Date.now();
    const p = broker.requestApproval(request("call_s", { requestedAt: now - 299_950, expiresAt: now + 50 }), never());
    expect(await p).toEqual({ decision: "denied", by: "timeout", reason: "no decision within 300s" });
    await broker.close();
  });

  test("aborting the run denies by system with the abort reason; an already-aborted signal too", async () => {
    const db = openDatabase(dbFile());
    const broker = createApprovalBroker({ ...openSqliteApprovals(db), defaultTimeoutMs: 60_000 });
    const ac = new AbortController();
    const p = broker.requestApproval(request("call_a"), ac.signal);
    ac.abort("user cancelled the turn");
    expect(await p).toEqual({ decision: "denied", by: "system", reason: "user cancelled the turn" });
    expect((await broker.get("call_a"))!.status).toBe("denied");
    const p2 = broker.requestApproval(request("call_b"), AbortSignal.abort());
    expect((await p2).by).toBe("system");
    expect(await broker.pending()).toEqual([]);
    await broker.close();
    db.close();
  });

  test("duplicate and late decisions are harmless: first wins; unknown ids say so", async () => {
    const db = openDatabase(dbFile());
    const broker = createApprovalBroker({ ...openSqliteApprovals(db), defaultTimeoutMs: 60_000 });
    const decided: ApprovalEvent[] = [];
    broker.subscribe((e) => e.type === "decided" && decided.push(e));
    const p = broker.requestApproval(request("call_d"), never());
    expect((await broker.decide("call_d", { decision: "denied", by: "bob", reason: "no" })).outcome).toBe("decided");
    const again = await broker.decide("call_d", { decision: "approved", by: "alice" });
    expect(again).toMatchObject({
      outcome: "already-decided",
      decision: { decision: "denied", by: "bob", reason: "no" },
    });
    expect(await p).toEqual({ decision: "denied", by: "bob", reason: "no" });
    expect(decided.length).toBe(1);
    expect(await broker.decide("call_nope", { decision: "approved", by: "alice" })).toEqual({ outcome: "unknown" });
    // A second request for the same call id returns the recorded decision instead of asking again.
    expect(await broker.requestApproval(request("call_d"), never())).toEqual({
      decision: "denied",
      by: "bob",
      reason: "no",
    });
    await broker.close();
    db.close();
  });

  test("20 concurrent approvals resolve independently", async () => {
    const db = openDatabase(dbFile());
    const broker = createApprovalBroker({ ...openSqliteApprovals(db), defaultTimeoutMs: 60_000 });
    broker.subscribe((e) => {
      if (e.type !== "requested") return;
      const n = Number(e.request.callId.split("_")[1]);
      // Decide asynchronously and out of order, like clicks arriving from Discord.
      setTimeout(
        () =>
          void broker.decide(
            e.request.callId,
            n % 2 ? { decision: "denied", by: "bob", reason: `odd ${n}` } : { decision: "approved", by: "alice" },
          ),
        20 - n,
      );
    });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => broker.requestApproval(request(`call_${i}`), never())),
    );
    results.forEach((r, i) =>
      expect(r).toEqual(
        i % 2 ? { decision: "denied", by: "bob", reason: `odd ${i}` } : { decision: "approved", by: "alice" },
      ),
    );
    expect(await broker.pending()).toEqual([]);
    await broker.close();
    db.close();
  });

  test("a subscriber that throws does not break the broker", async () => {
    const db = openDatabase(":memory:");
    const errors: unknown[] = [];
    const broker = createApprovalBroker({
      ...openSqliteApprovals(db),
      defaultTimeoutMs: 60_000,
      onListenerError: (e) => errors.push(e),
    });
    broker.subscribe(() => {
      throw new Error("surface down");
    });
    const seen: string[] = [];
    const unsubscribe = broker.subscribe((e) => seen.push(e.type));
    const p = broker.requestApproval(request("call_x"), never());
    await broker.decide("call_x", { decision: "approved", by: "alice" });
    expect((await p).decision).toBe("approved");
    expect(seen).toEqual(["requested", "decided"]);
    expect(errors.length).toBe(2);
    unsubscribe();
    await broker.close();
  });

  test("requests survive a restart: a new broker sees them pending and closes the orphans", async () => {
    const path = dbFile();
    const db1 = openDatabase(path);
    const first = createApprovalBroker({ ...openSqliteApprovals(db1), defaultTimeoutMs: 60_000 });
    void first.requestApproval(request("call_o1"), never());
    void first.requestApproval(request("call_o2", { sessionId: undefined }), never());
    // Simulate the process dying: no close(), the database handle just goes away.
    db1.close();

    const db2 = openDatabase(path);
    const second = createApprovalBroker({ ...openSqliteApprovals(db2), defaultTimeoutMs: 60_000 });
    expect((await second.pending()).map((r) => r.callId).sort()).toEqual(["call_o1", "call_o2"]);
    expect((await second.get("call_o1"))!.request).toMatchObject({
      toolPath: "calendar.create",
      code: expect.stringContaining("dentist"),
    });
    const live = second.requestApproval(request("call_live"), never());
    const closed = await second.closeOrphans("the gateway restarted");
    expect(closed.map((r) => r.callId).sort()).toEqual(["call_o1", "call_o2"]);
    expect((await second.get("call_o1"))!.decision).toEqual({
      decision: "denied",
      by: "system",
      reason: "the gateway restarted",
    });
    // The live request of this process is not an orphan.
    expect((await second.pending()).map((r) => r.callId)).toEqual(["call_live"]);
    // A click on an old card after the restart is harmless.
    expect((await second.decide("call_o1", { decision: "approved", by: "alice" })).outcome).toBe("already-decided");
    await second.close();
    expect(await live).toEqual({ decision: "denied", by: "system", reason: "the gateway is shutting down" });
    db2.close();
  });

  test("#30: a held request outlives closeOrphans; asked again under its id after a restart, it keeps its first expiry", async () => {
    const path = dbFile();
    const db1 = openDatabase(path);
    const first = createApprovalBroker({ ...openSqliteApprovals(db1), defaultTimeoutMs: 60_000 });
    const t0 = Date.now();
    // Asked before the restart, expiring 300 ms after it was asked.
    void first.requestApproval(request("call_h", { requestedAt: t0, expiresAt: t0 + 300 }), never());
    await first.pending();
    db1.close();

    const db2 = openDatabase(path);
    const second = createApprovalBroker({ ...openSqliteApprovals(db2), defaultTimeoutMs: 60_000 });
    const release = second.hold(["call_h"]);
    expect(await second.closeOrphans("the gateway restarted")).toEqual([]);
    expect((await second.get("call_h"))!.status).toBe("pending");
    // The resumed run asks again with a fresh window of a minute: the first window still decides.
    const again = second.requestApproval(request("call_h", { expiresAt: Date.now() + 60_000 }), never());
    const decision = await again;
    expect(decision).toMatchObject({ decision: "denied", by: "timeout", reason: "no decision within 0.3s" });
    release();
    await second.close();
    db2.close();
  });

  test("#30: a released hold lets closeOrphans close the request", async () => {
    const path = dbFile();
    const db1 = openDatabase(path);
    const first = createApprovalBroker({ ...openSqliteApprovals(db1), defaultTimeoutMs: 60_000 });
    void first.requestApproval(request("call_r"), never());
    await first.pending();
    db1.close();
    const db2 = openDatabase(path);
    const second = createApprovalBroker({ ...openSqliteApprovals(db2), defaultTimeoutMs: 60_000 });
    second.hold(["call_r"])();
    expect((await second.closeOrphans("the gateway restarted")).map((r) => r.callId)).toEqual(["call_r"]);
    await second.close();
    db2.close();
  });

  test("approve always creates a rule with scope and ttl", async () => {
    const db = openDatabase(dbFile());
    const now = 1_000_000;
    const broker = createApprovalBroker({
      ...openSqliteApprovals(db, { now: () => now }),
      defaultTimeoutMs: 60_000,
      now: () => now,
    });
    const p = broker.requestApproval(request("call_r", { requestedAt: now, expiresAt: now + 60_000 }), never());
    const res = await broker.decide("call_r", {
      decision: "approved",
      by: "alice",
      always: { scope: "session", ttlMs: 3_600_000 },
    });
    expect(res.outcome).toBe("decided");
    const rule = (res as { rule?: { id: string } }).rule!;
    expect(rule).toMatchObject({
      toolPath: "calendar.create",
      scope: "session",
      sessionId: "sess_1",
      createdBy: "alice",
      expiresAt: 1_000_000 + 3_600_000,
    });
    expect((await p).decision).toBe("approved");
    expect((await broker.rules.match("calendar.create", "sess_1", now))?.id).toBe(rule.id);
    expect(await broker.rules.match("calendar.create", "sess_2", now)).toBeUndefined();
    expect(await broker.rules.match("calendar.create", "sess_1", now + 3_600_000)).toBeUndefined();

    // Global scope; a denial never creates a rule.
    const p2 = broker.requestApproval(
      request("call_g", { toolPath: "mail.send", requestedAt: now, expiresAt: now + 60_000 }),
      never(),
    );
    await broker.decide("call_g", { decision: "approved", by: "bob", always: { scope: "global" } });
    await p2;
    expect((await broker.rules.match("mail.send", undefined, now + 10 ** 9))?.createdBy).toBe("bob");
    const p3 = broker.requestApproval(
      request("call_n", { toolPath: "fs.wipe", requestedAt: now, expiresAt: now + 60_000 }),
      never(),
    );
    await broker.decide("call_n", { decision: "denied", by: "bob", always: { scope: "global" } });
    await p3;
    expect(await broker.rules.match("fs.wipe", "sess_1", now)).toBeUndefined();
    await broker.close();
    db.close();
  });

  test("invalid decisions are rejected with a clear message", async () => {
    const db = openDatabase(":memory:");
    const broker = createApprovalBroker({ ...openSqliteApprovals(db), defaultTimeoutMs: 60_000 });
    await expect(broker.decide("c", { decision: "maybe" as "approved", by: "alice" })).rejects.toThrow(
      /must be "approved" or "denied"/,
    );
    await expect(broker.decide("c", { decision: "approved", by: "" })).rejects.toThrow(/"by" must name who decided/);
    expect(() => createApprovalBroker({ ...openSqliteApprovals(db), defaultTimeoutMs: 0 })).toThrow(
      /defaultTimeoutMs must be > 0/,
    );
    await broker.close();
  });

  test("two brokers on one database: a decision made by the other is taken from the store, also when the wait ends first", async () => {
    const path = dbFile();
    const [dbA, dbB] = [openDatabase(path), openDatabase(path)];
    const a = createApprovalBroker({ ...openSqliteApprovals(dbA), defaultTimeoutMs: 60_000 });
    const b = createApprovalBroker({ ...openSqliteApprovals(dbB), defaultTimeoutMs: 60_000 });
    const events: ApprovalEvent[] = [];
    a.subscribe((e) => events.push(e));
    const requested = new Promise<void>((ok) => a.subscribe((e) => e.type === "requested" && ok()));
    const waiting = a.requestApproval(request("call_far"), never());
    await requested;
    expect(await b.decide("call_far", { decision: "approved", by: "bob" })).toMatchObject({ outcome: "decided" });
    expect(await a.settleFromStore("call_far")).toBe(true);
    expect(await waiting).toEqual({ decision: "approved", by: "bob" });
    expect(events.map((e) => e.type)).toEqual(["requested", "decided"]);
    expect(await a.settleFromStore("call_far")).toBe(false); // nothing waits any more

    // The other gateway decided, but the announcement never came: the wait ends (aborted here)
    // and the stored decision holds, not the system's denial.
    const controller = new AbortController();
    const requested2 = new Promise<void>((ok) =>
      a.subscribe((e) => e.type === "requested" && e.request.callId === "call_quiet" && ok()),
    );
    const quiet = a.requestApproval(request("call_quiet"), controller.signal);
    await requested2;
    await b.decide("call_quiet", { decision: "approved", by: "bob" });
    controller.abort(new Error("turn cancelled"));
    expect(await quiet).toEqual({ decision: "approved", by: "bob" });
    await a.close();
    await b.close();
    dbA.close();
    dbB.close();
  });

  test("a shared store: closeOrphans leaves a request another gateway may wait for, and closes an expired one", async () => {
    const path = dbFile();
    const [dbA, dbB] = [openDatabase(path), openDatabase(path)];
    const a = createApprovalBroker({ ...openSqliteApprovals(dbA), defaultTimeoutMs: 60_000 });
    const b = createApprovalBroker({ ...openSqliteApprovals(dbB), defaultTimeoutMs: 60_000, shared: true });
    const requested = new Promise<void>((ok) => a.subscribe((e) => e.type === "requested" && ok()));
    void a.requestApproval(request("call_live_there"), never());
    await requested;
    // Left by a gateway that died, long expired.
    await openSqliteApprovals(dbB).store.insert(request("call_dead", { requestedAt: 1, expiresAt: 2 }));
    expect((await b.closeOrphans("the gateway restarted")).map((r) => r.callId)).toEqual(["call_dead"]);
    expect((await b.get("call_live_there"))!.status).toBe("pending");
    await a.close();
    await b.close();
    dbA.close();
    dbB.close();
  });
});

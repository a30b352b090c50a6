import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit";
import { openDatabase } from "../db/open.ts";
import { createSqliteReceiptStore } from "./sqlite-store.ts";
import type { ReceiptDraft, ReceiptPhase } from "./types.ts";

const dbFile = () => join(makeTempDir("oa-receipts-"), "gateway.sqlite");

function draft(over: Partial<ReceiptDraft> & { phase: ReceiptPhase }): ReceiptDraft {
  return { runId: "run_1", callId: "call_1", toolPath: "calendar.create", approval: "required", policy: "required", ...over };
}

/** A clock the test moves by hand. */
function clock(start = 1_700_000_000_000) {
  let t = start;
  return { now: () => t, set: (v: number) => void (t = v) };
}

describe("sqlite receipt store: append and query", () => {
  test("append returns the stored receipt with id, seq, time and chain; byRun reads it back", () => {
    const db = openDatabase(dbFile());
    const c = clock();
    const store = createSqliteReceiptStore(db, { now: c.now });
    const a = store.append(draft({ phase: "requested", sessionId: "s1", inputPreview: '{"title":"x"}' }));
    const b = store.append(draft({ phase: "approved", decision: "approved", decidedBy: "alice" }));
    expect(a).toMatchObject({ id: "r_000001", seq: 1, at: c.now(), prevHash: null, phase: "requested", sessionId: "s1" });
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(b.prevHash).toBe(a.hash);
    expect(b.id).toBe("r_000002");
    expect(store.byRun("run_1")).toEqual([a, b]);
    expect("decision" in a).toBe(false); // absent fields stay absent, not null
    db.close();
  });

  test("query filters by run, call, session, phase and time, newest last with a limit", () => {
    const db = openDatabase(dbFile());
    const c = clock(1000);
    const store = createSqliteReceiptStore(db, { now: c.now });
    for (let i = 0; i < 10; i++) {
      c.set(1000 + i * 10);
      store.append(draft({ runId: `run_${i % 2}`, callId: `call_${i}`, sessionId: i < 5 ? "s_a" : "s_b", phase: i % 3 === 0 ? "failed" : "requested" }));
    }
    expect(store.query({ runId: "run_0" }).map((r) => r.callId)).toEqual(["call_0", "call_2", "call_4", "call_6", "call_8"]);
    expect(store.query({ callId: "call_3" }).map((r) => r.seq)).toEqual([4]);
    expect(store.query({ sessionId: "s_b" }).map((r) => r.callId)).toEqual(["call_5", "call_6", "call_7", "call_8", "call_9"]);
    expect(store.query({ phase: "failed" }).map((r) => r.callId)).toEqual(["call_0", "call_3", "call_6", "call_9"]);
    expect(store.query({ since: 1030, until: 1050 }).map((r) => r.at)).toEqual([1030, 1040, 1050]);
    expect(store.query({ limit: 3 }).map((r) => r.callId)).toEqual(["call_7", "call_8", "call_9"]);
    expect(store.query({ runId: "run_1", phase: "requested", limit: 2 }).map((r) => r.callId)).toEqual(["call_5", "call_7"]);
    expect(() => store.query({ limit: 0 })).toThrow(/limit must be a positive integer/);
    db.close();
  });

  test("default limit is 200, newest last", () => {
    const db = openDatabase(":memory:");
    const store = createSqliteReceiptStore(db);
    for (let i = 0; i < 250; i++) store.append(draft({ callId: `c${i}`, phase: "requested" }));
    const rows = store.query({});
    expect(rows.length).toBe(200);
    expect(rows[0]!.callId).toBe("c50");
    expect(rows.at(-1)!.callId).toBe("c249");
    db.close();
  });

  test("tool glob: `*` within one segment, `**` across, exact path, and limit counts only matches", () => {
    const db = openDatabase(dbFile());
    const store = createSqliteReceiptStore(db);
    const paths = ["calendar.create", "calendar.events.create", "calendar.delete", "weather.get", "calendarx.create", "mail.delete"];
    paths.forEach((toolPath, i) => store.append(draft({ callId: `c${i}`, toolPath, phase: "requested" })));
    const tools = (tool: string, limit?: number) => store.query({ tool, limit }).map((r) => r.toolPath);
    expect(tools("calendar.*")).toEqual(["calendar.create", "calendar.delete"]);
    expect(tools("calendar.**")).toEqual(["calendar.create", "calendar.events.create", "calendar.delete"]);
    expect(tools("*.delete")).toEqual(["calendar.delete", "mail.delete"]);
    expect(tools("**.create")).toEqual(["calendar.create", "calendar.events.create", "calendarx.create"]);
    expect(tools("weather.get")).toEqual(["weather.get"]);
    expect(tools("calendar.*", 1)).toEqual(["calendar.delete"]);
    // Characters special to SQL GLOB are literal in tool patterns.
    expect(tools("calendar.[c]*")).toEqual([]);
    expect(tools("calendar.?reate")).toEqual([]);
    db.close();
  });

  test("invalid drafts are rejected with a message naming the call and field", () => {
    const db = openDatabase(":memory:");
    const store = createSqliteReceiptStore(db);
    expect(() => store.append({ ...draft({ phase: "requested" }), phase: "done" as ReceiptPhase })).toThrow(/calendar\.create \(call call_1\): phase must be one of/);
    expect(() => store.append(draft({ phase: "requested", runId: "" }))).toThrow(/runId must be a non-empty string/);
    expect(() => store.append(draft({ phase: "succeeded", durationMs: Number.NaN }))).toThrow(/durationMs/);
    expect(store.query({})).toEqual([]);
    db.close();
  });
});

describe("sqlite receipt store: append-only and tamper evidence", () => {
  test("UPDATE and DELETE are rejected by the database itself", () => {
    const path = dbFile();
    const db = openDatabase(path);
    const store = createSqliteReceiptStore(db);
    store.append(draft({ phase: "requested" }));
    const raw = new Database(path);
    expect(() => raw.exec("UPDATE receipts SET tool_path = 'x'")).toThrow(/append-only: UPDATE is not allowed/);
    expect(() => raw.exec("DELETE FROM receipts")).toThrow(/append-only: DELETE is not allowed/);
    expect(store.byRun("run_1")[0]!.toolPath).toBe("calendar.create");
    raw.close();
    db.close();
  });

  test("the hash chain verifies, and detects an edited row (trigger dropped by a second connection)", () => {
    const path = dbFile();
    const db = openDatabase(path);
    const store = createSqliteReceiptStore(db);
    store.append(draft({ phase: "requested" }));
    const target = store.append(draft({ phase: "denied", decision: "denied", decidedBy: "bob", reason: "not today" }));
    store.append(draft({ runId: "run_2", callId: "call_9", phase: "requested" }));
    expect(store.verifyRun("run_1")).toEqual({ ok: true });
    expect(store.verifyRun("run_2")).toEqual({ ok: true });
    expect(store.verifyRun("run_none")).toEqual({ ok: true });

    const raw = new Database(path);
    raw.exec("DROP TRIGGER receipts_no_update");
    raw.prepare("UPDATE receipts SET phase = 'approved', decision = 'approved', reason = NULL WHERE id = ?").run(target.id);
    raw.close();

    const result = store.verifyRun("run_1");
    expect(result).toEqual({ ok: false, brokenAt: target.id, reason: expect.stringContaining("does not match its hash") });
    expect(store.verifyRun("run_2")).toEqual({ ok: true });
    db.close();
  });

  test("a removed middle receipt and a cut tail are both detected", () => {
    const path = dbFile();
    const db = openDatabase(path);
    const store = createSqliteReceiptStore(db);
    const rs = ["requested", "approved", "started", "succeeded"].map((phase) => store.append(draft({ phase: phase as ReceiptPhase })));
    const raw = new Database(path);
    raw.exec("DROP TRIGGER receipts_no_delete");
    raw.prepare("DELETE FROM receipts WHERE id = ?").run(rs[1]!.id);
    const mid = store.verifyRun("run_1");
    expect(mid).toMatchObject({ ok: false, brokenAt: rs[2]!.id });
    expect((mid as { reason: string }).reason).toContain("prev_hash");

    raw.prepare("DELETE FROM receipts WHERE id = ?").run(rs[3]!.id);
    raw.close();
    // A fresh store (no memory of the tail) still finds the hole in the middle.
    const otherDb = openDatabase(path);
    const other = createSqliteReceiptStore(otherDb);
    expect(other.verifyRun("run_1")).toMatchObject({ ok: false, brokenAt: rs[2]!.id });
    otherDb.close();
    db.close();
  });

  test("the tail cut is detected by the process that appended it", () => {
    const path = dbFile();
    const db = openDatabase(path);
    const store = createSqliteReceiptStore(db);
    store.append(draft({ phase: "requested" }));
    const last = store.append(draft({ phase: "started", decision: "approved" }));
    const raw = new Database(path);
    raw.exec("DROP TRIGGER receipts_no_delete");
    raw.prepare("DELETE FROM receipts WHERE id = ?").run(last.id);
    raw.close();
    expect(store.verifyRun("run_1")).toMatchObject({ ok: false, reason: expect.stringContaining("last receipt is missing") });
    db.close();
  });

  test("the chain continues across reopen and across two stores writing the same file", () => {
    const path = dbFile();
    const db1 = openDatabase(path);
    const s1 = createSqliteReceiptStore(db1);
    const first = s1.append(draft({ phase: "requested" }));
    db1.close();

    const db2 = openDatabase(path);
    const s2 = createSqliteReceiptStore(db2);
    const second = s2.append(draft({ phase: "approved", decision: "approved", decidedBy: "alice" }));
    expect(second.prevHash).toBe(first.hash);
    expect(second.seq).toBe(2);

    // A second connection appends to the same run: the first store must not reuse its cached hash.
    const db3 = openDatabase(path);
    const s3 = createSqliteReceiptStore(db3);
    const third = s3.append(draft({ phase: "started", decision: "approved" }));
    const fourth = s2.append(draft({ phase: "succeeded", decision: "approved", outputPreview: "ok" }));
    expect(fourth.prevHash).toBe(third.hash);
    expect(s2.verifyRun("run_1")).toEqual({ ok: true });
    expect(s3.byRun("run_1").map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    db2.close();
    db3.close();
  });
});

describe("sqlite receipt store: durability", () => {
  test("a SIGKILLed child keeps every receipt it appended; reopening shows an intact chain that continues", async () => {
    const dir = makeTempDir("oa-receipts-kill-");
    const path = join(dir, "gateway.sqlite");
    const setup = openDatabase(path);
    const before = createSqliteReceiptStore(setup).append(draft({ runId: "run_old", phase: "requested" }));
    setup.close();

    const script = join(dir, "child.ts");
    await Bun.write(
      script,
      `import { openDatabase } from ${JSON.stringify(new URL("../db/open.ts", import.meta.url).pathname)};
import { createSqliteReceiptStore } from ${JSON.stringify(new URL("./sqlite-store.ts", import.meta.url).pathname)};
const store = createSqliteReceiptStore(openDatabase(process.argv[2]!));
const base = { runId: "run_k", callId: "call_k", toolPath: "calendar.create", approval: "required", policy: "required" } as const;
store.append({ ...base, phase: "requested", inputPreview: "{}" });
store.append({ ...base, phase: "approved", decision: "approved", decidedBy: "alice" });
store.append({ ...base, phase: "started", decision: "approved", decidedBy: "alice" });
console.log("STARTED");
setInterval(() => {}, 1000); // the tool "runs" forever; succeeded is never written
`,
    );
    const child = Bun.spawn(["bun", script, path], { stdout: "pipe", stderr: "inherit" });
    const reader = child.stdout.getReader();
    let out = "";
    while (!out.includes("STARTED")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`child exited early: ${out}`);
      out += new TextDecoder().decode(value);
    }
    child.kill("SIGKILL");
    expect(await child.exited).not.toBe(0);
    expect(child.signalCode).toBe("SIGKILL");

    const db = openDatabase(path);
    const store = createSqliteReceiptStore(db);
    expect(store.byRun("run_old")).toEqual([before]);
    const run = store.byRun("run_k");
    expect(run.map((r) => r.phase)).toEqual(["requested", "approved", "started"]);
    expect(store.verifyRun("run_k")).toEqual({ ok: true });
    const failed = store.append({ runId: "run_k", callId: "call_k", toolPath: "calendar.create", approval: "required", policy: "required", phase: "failed", error: "gateway restarted while the tool ran" });
    expect(failed.prevHash).toBe(run[2]!.hash);
    expect(store.verifyRun("run_k")).toEqual({ ok: true });
    db.close();
  });
});

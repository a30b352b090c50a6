import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { receiptKeyPath } from "../key.ts";
import { openDatabase } from "../../db/open.ts";
import { RECEIPT_FIELD_CAPS, receiptTextBound, RUN_SPENT_CAP, RUN_TEXT_BUDGET } from "../bounds.ts";
import { receiptHash } from "../hash.ts";
import { receiptMac } from "../mac.ts";
import { createSqliteReceiptStore } from "./store.ts";
import type { Receipt, ReceiptDraft, ReceiptPhase } from "../types.ts";

/** The receipts table as the release before the keyed chain created it (no `scheme` column). */
const LEGACY_SCHEMA = `
  CREATE TABLE receipts (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT GENERATED ALWAYS AS ('r_' || printf('%06d', seq)) VIRTUAL,
    run_id TEXT NOT NULL, call_id TEXT NOT NULL, session_id TEXT, tool_path TEXT NOT NULL,
    phase TEXT NOT NULL CHECK (phase IN ('requested','approved','denied','started','succeeded','failed')),
    approval TEXT NOT NULL CHECK (approval IN ('auto','required')),
    policy TEXT NOT NULL CHECK (policy IN ('auto','required','deny')),
    decision TEXT CHECK (decision IS NULL OR decision IN ('auto','approved','denied')),
    decided_by TEXT, reason TEXT, input_preview TEXT, output_preview TEXT, error TEXT, duration_ms REAL,
    at INTEGER NOT NULL, prev_hash TEXT, hash TEXT NOT NULL
  );
  CREATE INDEX receipts_run ON receipts (run_id, seq);
  CREATE TRIGGER receipts_no_update BEFORE UPDATE ON receipts
    BEGIN SELECT RAISE(ABORT, 'receipts are append-only: UPDATE is not allowed'); END;
  CREATE TRIGGER receipts_no_delete BEFORE DELETE ON receipts
    BEGIN SELECT RAISE(ABORT, 'receipts are append-only: DELETE is not allowed'); END;
`;

const dbFile = () => join(makeTempDir("oa-receipts-"), "gateway.sqlite");
/** A database file and a config dir for its key, as the gateway lays them out. */
function files() {
  const dir = makeTempDir("oa-receipts-");
  return { path: join(dir, "gateway.sqlite"), keyDir: join(dir, "config") };
}

function draft(over: Partial<ReceiptDraft> & { phase: ReceiptPhase }): ReceiptDraft {
  return {
    runId: "run_1",
    callId: "call_1",
    toolPath: "calendar.create",
    approval: "required",
    policy: "required",
    ...over,
  };
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
    expect(a).toMatchObject({ id: "r_000001", seq: 1, at: c.now(), phase: "requested", sessionId: "s1" });
    expect(a.prevHash).toMatch(/^[0-9a-f]{64}$/); // the chain's genesis mac
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
      store.append(
        draft({
          runId: `run_${i % 2}`,
          callId: `call_${i}`,
          sessionId: i < 5 ? "s_a" : "s_b",
          phase: i % 3 === 0 ? "failed" : "requested",
        }),
      );
    }
    expect(store.query({ runId: "run_0" }).map((r) => r.callId)).toEqual([
      "call_0",
      "call_2",
      "call_4",
      "call_6",
      "call_8",
    ]);
    expect(store.query({ callId: "call_3" }).map((r) => r.seq)).toEqual([4]);
    expect(store.query({ sessionId: "s_b" }).map((r) => r.callId)).toEqual([
      "call_5",
      "call_6",
      "call_7",
      "call_8",
      "call_9",
    ]);
    expect(store.query({ phase: "failed" }).map((r) => r.callId)).toEqual(["call_0", "call_3", "call_6", "call_9"]);
    expect(store.query({ since: 1030, until: 1050 }).map((r) => r.at)).toEqual([1030, 1040, 1050]);
    expect(store.query({ limit: 3 }).map((r) => r.callId)).toEqual(["call_7", "call_8", "call_9"]);
    expect(store.query({ runId: "run_1", phase: "requested", limit: 2 }).map((r) => r.callId)).toEqual([
      "call_5",
      "call_7",
    ]);
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
    const paths = [
      "calendar.create",
      "calendar.events.create",
      "calendar.delete",
      "weather.get",
      "calendarx.create",
      "mail.delete",
    ];
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
    expect(() => store.append({ ...draft({ phase: "requested" }), phase: "done" as ReceiptPhase })).toThrow(
      /calendar\.create \(call call_1\): phase must be one of/,
    );
    expect(() => store.append(draft({ phase: "requested", runId: "" }))).toThrow(/runId must be a non-empty string/);
    expect(() => store.append(draft({ phase: "succeeded", durationMs: Number.NaN }))).toThrow(/durationMs/);
    expect(store.query({})).toEqual([]);
    db.close();
  });
});

describe("sqlite receipt store: group commit", () => {
  test("staged receipts are committed together on the next turn; durable() waits for that commit; reads commit first", async () => {
    const { path, keyDir } = files();
    const db = openDatabase(path);
    const store = createSqliteReceiptStore(db, { keyDir });
    const raw = new Database(path, { readonly: true });
    const count = () => (raw.query("SELECT COUNT(*) AS n FROM receipts").get() as { n: number }).n;
    store.stage(draft({ phase: "requested" }));
    store.stage(draft({ phase: "started", decision: "auto" }));
    store.stage(draft({ runId: "run_2", callId: "call_2", phase: "requested" }));
    expect(count()).toBe(0);
    await store.durable();
    expect(count()).toBe(3);
    store.stage(draft({ phase: "succeeded", decision: "auto" }));
    expect(store.byRun("run_1").map((r) => r.phase)).toEqual(["requested", "started", "succeeded"]);
    expect(count()).toBe(4);
    await store.durable(); // nothing staged: resolves at once
    expect(store.verify()).toMatchObject({ ok: true, keyed: 4, head: "checked" });
    raw.close();
    store.close();
    db.close();
  });

  test("50 concurrent runs share commits; every receipt lands once, in one verified chain", async () => {
    const { path, keyDir } = files();
    const db = openDatabase(path);
    const store = createSqliteReceiptStore(db, { keyDir });
    const run = async (r: number) => {
      for (let c = 0; c < 10; c++) {
        const base = {
          runId: `run_${r}`,
          callId: `call_${r}_${c}`,
          phase: "requested" as const,
          approval: "auto" as const,
          policy: "auto" as const,
        };
        store.stage(draft(base));
        store.stage(draft({ ...base, phase: "started", decision: "auto" }));
        await store.durable();
        store.stage(draft({ ...base, phase: "succeeded", decision: "auto" }));
      }
      await store.durable();
    };
    await Promise.all(Array.from({ length: 50 }, (_, r) => run(r)));
    const seqs = (db.query("SELECT seq FROM receipts ORDER BY seq").all() as Array<{ seq: number }>).map((r) => r.seq);
    expect(seqs).toEqual(Array.from({ length: 1500 }, (_, i) => i + 1));
    for (let r = 0; r < 50; r += 7) expect(store.byRun(`run_${r}`).length).toBe(30);
    expect(store.verify()).toMatchObject({ ok: true, keyed: 1500 });
    store.close();
    db.close();
  });

  test("a deferred receipt starts no commit of its own: the next durable() carries it, or its timer does", async () => {
    const { path, keyDir } = files();
    const db = openDatabase(path);
    const store = createSqliteReceiptStore(db, { keyDir });
    const raw = new Database(path, { readonly: true });
    const count = () => (raw.query("SELECT COUNT(*) AS n FROM receipts").get() as { n: number }).n;
    store.stage(draft({ phase: "requested" }), { defer: true });
    store.stage(draft({ phase: "started", decision: "auto" }), { defer: true });
    await Promise.resolve(); // a non-deferred stage would have committed in this microtask
    expect(count()).toBe(0);
    await store.durable();
    expect(count()).toBe(2);
    // The outcome, with nothing after it: committed by the store's own short timer.
    store.stage(draft({ phase: "succeeded", decision: "auto" }), { defer: true });
    expect(count()).toBe(2);
    for (let i = 0; i < 500 && count() < 3; i++) await Bun.sleep(5);
    expect(count()).toBe(3);
    expect(store.verify()).toMatchObject({ ok: true, keyed: 3, head: "checked" });
    raw.close();
    store.close();
    db.close();
  });

  test("a commit that fails rejects its waiters and keeps the receipts; the next commit writes them", async () => {
    const { path, keyDir } = files();
    const db = openDatabase(path);
    db.exec("PRAGMA busy_timeout = 20");
    const store = createSqliteReceiptStore(db, { keyDir });
    const locker = new Database(path);
    locker.exec("BEGIN IMMEDIATE");
    store.stage(draft({ phase: "requested" }));
    await expect(store.durable()).rejects.toThrow(/locked|busy/i);
    locker.exec("ROLLBACK");
    locker.close();
    await store.durable();
    expect(store.byRun("run_1").map((r) => r.phase)).toEqual(["requested"]);
    expect(store.verify()).toMatchObject({ ok: true, keyed: 1 });
    store.close();
    db.close();
  });
});

describe("sqlite receipt store: no statement replaces or removes a receipt", () => {
  // Each statement comes from a second, raw connection to the same file.
  const ATTEMPTS: Array<[string, string]> = [
    [
      "INSERT OR REPLACE",
      "INSERT OR REPLACE INTO receipts (seq, run_id, call_id, tool_path, phase, approval, policy, decision, decided_by, at, hash) VALUES (2, 'run_1', 'call_1', 'mail.send', 'approved', 'required', 'required', 'approved', 'bob', 0, 'x')",
    ],
    [
      "REPLACE INTO",
      "REPLACE INTO receipts (seq, run_id, call_id, tool_path, phase, approval, policy, decision, at, hash) VALUES (2, 'run_1', 'call_1', 'mail.send', 'approved', 'required', 'required', 'approved', 0, 'x')",
    ],
    [
      "REPLACE via the rowid alias",
      "REPLACE INTO receipts (rowid, run_id, call_id, tool_path, phase, approval, policy, at, hash) VALUES (2, 'run_1', 'call_1', 'mail.send', 'approved', 'required', 'required', 0, 'x')",
    ],
    [
      "upsert ON CONFLICT DO UPDATE",
      "INSERT INTO receipts (seq, run_id, call_id, tool_path, phase, approval, policy, at, hash) VALUES (2, 'r', 'c', 't', 'approved', 'auto', 'auto', 0, 'x') ON CONFLICT(seq) DO UPDATE SET phase = 'approved', decision = 'approved'",
    ],
    [
      "upsert ON CONFLICT DO NOTHING",
      "INSERT INTO receipts (seq, run_id, call_id, tool_path, phase, approval, policy, at, hash) VALUES (2, 'r', 'c', 't', 'approved', 'auto', 'auto', 0, 'x') ON CONFLICT DO NOTHING",
    ],
    [
      "INSERT OR REPLACE ... SELECT",
      "INSERT OR REPLACE INTO receipts (seq, run_id, call_id, tool_path, phase, approval, policy, at, hash) SELECT seq, run_id, call_id, tool_path, 'approved', approval, policy, at, hash FROM receipts",
    ],
    ["UPDATE", "UPDATE receipts SET phase = 'approved', decision = 'approved' WHERE seq = 2"],
    ["UPDATE OR REPLACE", "UPDATE OR REPLACE receipts SET seq = 1 WHERE seq = 2"],
    ["DELETE", "DELETE FROM receipts WHERE seq = 2"],
    ["meta: REPLACE the database id", "REPLACE INTO receipt_meta (name, value) VALUES ('db_id', 'db_other')"],
    ["meta: UPDATE", "UPDATE receipt_meta SET value = 'x'"],
    ["meta: DELETE", "DELETE FROM receipt_meta"],
  ];

  test.each([false, true])(
    "every REPLACE/upsert/UPDATE/DELETE variant fails (recursive_triggers=%p); the denial stays a denial",
    (recursive) => {
      const { path, keyDir } = files();
      const db = openDatabase(path);
      const store = createSqliteReceiptStore(db, { keyDir });
      store.append(draft({ toolPath: "mail.send", phase: "requested" }));
      const denial = store.append(
        draft({ toolPath: "mail.send", phase: "denied", decision: "denied", decidedBy: "bob", reason: "not today" }),
      );
      const before = db.query("SELECT * FROM receipts ORDER BY seq").all();
      const raw = new Database(path);
      raw.exec(`PRAGMA recursive_triggers = ${recursive ? "ON" : "OFF"}`);
      const outcomes = ATTEMPTS.map(([name, sql]) => {
        try {
          raw.exec(sql);
          return [name, "accepted"];
        } catch (e) {
          return [name, (e as Error).message];
        }
      });
      expect(outcomes).toEqual(ATTEMPTS.map(([name]) => [name, expect.stringContaining("append-only")]));
      raw.close();
      expect(db.query("SELECT * FROM receipts ORDER BY seq").all()).toEqual(before);
      expect(store.byRun("run_1")[1]).toEqual(denial);
      expect(store.verify()).toMatchObject({ ok: true, keyed: 2 });
      store.close();
      db.close();
    },
  );
  // Out of scope, by design: DROP TRIGGER (or writing the file's bytes) removes the refusal; the
  // keyed chain below is what shows such an edit.
});

/** A store with three runs; `tamper` gets a raw connection with the triggers dropped. */
function tampered(tamper: (raw: Database, rows: Receipt[]) => void) {
  const { path, keyDir } = files();
  const db = openDatabase(path);
  const store = createSqliteReceiptStore(db, { keyDir });
  const rows: Receipt[] = [];
  for (const [run, call] of [
    ["run_a", "c1"],
    ["run_b", "c2"],
    ["run_a", "c3"],
    ["run_c", "c4"],
  ] as const) {
    const base = {
      runId: run,
      callId: call,
      toolPath: "mail.send",
      approval: "required",
      policy: "required",
      sessionId: "s1",
    } as const;
    rows.push(store.append({ ...base, phase: "requested", inputPreview: '{"to":"a@b.c"}' }));
    rows.push(store.append({ ...base, phase: "denied", decision: "denied", decidedBy: "bob", reason: "not today" }));
    rows.push(
      store.append({
        ...base,
        phase: "failed",
        decision: "denied",
        decidedBy: "bob",
        error: "denied",
        durationMs: 1.5,
        model: "openai-compatible:llama3.1:8b",
      }),
    );
  }
  expect(store.verify()).toMatchObject({ ok: true, keyed: 12, head: "checked" });
  store.close();
  db.close();
  const raw = new Database(path);
  raw.exec("DROP TRIGGER receipts_no_update; DROP TRIGGER receipts_no_delete; DROP TRIGGER receipts_no_replace;");
  tamper(raw, rows);
  raw.close();
  // A fresh store, as `openassistant receipts verify` opens it.
  const again = openDatabase(path);
  const verifier = createSqliteReceiptStore(again, { keyDir });
  const result = verifier.verify();
  const runs = Object.fromEntries(["run_a", "run_b", "run_c"].map((r) => [r, verifier.verifyRun(r)]));
  again.close();
  return { result, runs, rows };
}

describe("sqlite receipt store: the keyed chain shows every change (triggers dropped)", () => {
  const FIELDS: Array<[string, string]> = [
    ["run_id", "'run_x'"],
    ["call_id", "'c9'"],
    ["session_id", "'s2'"],
    ["session_id", "NULL"],
    ["tool_path", "'mail.read'"],
    ["phase", "'approved'"],
    ["approval", "'auto'"],
    ["policy", "'auto'"],
    ["decision", "'approved'"],
    ["decided_by", "'alice'"],
    ["decided_by", "NULL"],
    ["reason", "'ok'"],
    ["reason", "NULL"],
    ["input_preview", "'{}'"],
    ["output_preview", "'sent'"],
    ["error", "NULL"],
    ["duration_ms", "2.5"],
    ["model", "'anthropic:claude-sonnet-5-5'"],
    ["model", "NULL"],
    ["at", "at + 1"],
    ["prev_hash", "hash"],
    ["hash", "prev_hash"],
    ["scheme", "1"],
    ["seq", "100"],
  ];
  test.each(FIELDS)("changing %s of one receipt to %s is found at that receipt", (column, value) => {
    // Row 5 (the denial of c2) for most fields; row 6 has error/duration_ms/model set.
    const target = column === "error" || column === "duration_ms" || (column === "model" && value === "NULL") ? 6 : 5;
    const { result, runs } = tampered((raw) =>
      raw.exec(`UPDATE receipts SET ${column} = ${value} WHERE seq = ${target}`),
    );
    const at = column === "seq" ? "r_000006" : `r_00000${target}`; // a moved row shows at its old successor
    expect(result).toMatchObject({ ok: false, brokenAt: at });
    expect(runs.run_a).toMatchObject({ ok: false }); // run_a began before the change
  });

  test("rewriting a receipt and re-hashing it without the key (old unkeyed scheme) is found", () => {
    const { result } = tampered((raw, rows) => {
      const r = rows[4]!;
      const forged = receiptHash(r.prevHash, { ...r, phase: "approved", decision: "approved", reason: undefined });
      raw
        .prepare("UPDATE receipts SET phase = 'approved', decision = 'approved', reason = NULL, hash = ? WHERE seq = 5")
        .run(forged);
    });
    expect(result).toMatchObject({ ok: false, brokenAt: "r_000005", reason: expect.stringContaining("keyed MAC") });
  });

  test("removing a receipt in the middle, a whole run, or the tail is found", () => {
    expect(tampered((raw) => raw.exec("DELETE FROM receipts WHERE seq = 4")).result).toMatchObject({
      ok: false,
      brokenAt: "r_000005",
      reason: expect.stringContaining("removed"),
    });
    const wholeRun = tampered((raw) => raw.exec("DELETE FROM receipts WHERE run_id = 'run_b'"));
    expect(wholeRun.result).toMatchObject({ ok: false, brokenAt: "r_000007" });
    expect(wholeRun.runs.run_a).toMatchObject({ ok: false, brokenAt: "r_000007" });
    expect(wholeRun.runs.run_c).toEqual({ ok: true }); // run_c's own rows are intact; the whole-database check finds the hole
    const tail = tampered((raw) => raw.exec("DELETE FROM receipts WHERE seq > 9"));
    expect(tail.result).toMatchObject({
      ok: false,
      brokenAt: "r_000012",
      reason: expect.stringContaining("receipts at the end were removed"),
    });
    expect(tail.runs.run_c).toEqual({ ok: true }); // nothing left of run_c to check
    expect(tail.runs.run_a).toMatchObject({ ok: false, brokenAt: "r_000012" });
  });

  test("a run's own check finds its last receipt removed: it reads through the receipt after the run's last", () => {
    // run_a's rows are 1-3 and 7-9; row 10 (run_c) chains on from row 9.
    const cut = tampered((raw) => raw.exec("DELETE FROM receipts WHERE seq = 9"));
    expect(cut.runs.run_a).toMatchObject({
      ok: false,
      brokenAt: "r_000010",
      reason: expect.stringContaining("removed"),
    });
    expect(cut.runs.run_b).toEqual({ ok: true });
  });

  test("after a cut tail the writer chains on from the head, so the gap stays visible", () => {
    const { path, keyDir } = files();
    const db = openDatabase(path);
    const store = createSqliteReceiptStore(db, { keyDir });
    for (const phase of ["requested", "started", "succeeded"] as const) store.append(draft({ phase }));
    const raw = new Database(path);
    raw.exec("DROP TRIGGER receipts_no_delete; DELETE FROM receipts WHERE seq = 3; DELETE FROM sqlite_sequence;");
    raw.close();
    const next = store.append(draft({ callId: "call_2", phase: "requested" }));
    expect(next.seq).toBe(4);
    expect(store.verify()).toMatchObject({
      ok: false,
      brokenAt: "r_000004",
      reason: expect.stringContaining("removed"),
    });
    store.close();
    db.close();
  });

  test("a database rolled back and rewritten by another holder of the key is found: the head names one exact receipt", async () => {
    const { path, keyDir } = files();
    const backup = `${path}.bak`;
    const append = async (dir: string, callId: string) => {
      const db = openDatabase(path);
      const store = createSqliteReceiptStore(db, { keyDir: dir });
      for (const phase of ["requested", "succeeded"] as const) store.append(draft({ callId, phase }));
      await store.durable();
      store.close();
      db.close();
    };
    await append(keyDir, "call_1");
    const saved = ["", "-wal"].filter((suffix) => statSync(`${path}${suffix}`, { throwIfNoEntry: false }));
    for (const suffix of saved) copyFileSync(`${path}${suffix}`, `${backup}${suffix}`);
    await append(keyDir, "call_2"); // this machine's head: r_000004 of call_2
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
    for (const suffix of saved) copyFileSync(`${backup}${suffix}`, `${path}${suffix}`);
    // Someone else with a copy of the key (but not this machine's head) writes other receipts 3 and 4.
    const otherDir = join(keyDir, "..", "other-config");
    mkdirSync(otherDir, { recursive: true, mode: 0o700 });
    copyFileSync(receiptKeyPath(keyDir), receiptKeyPath(otherDir));
    await append(otherDir, "call_forged");

    const db = openDatabase(path);
    const store = createSqliteReceiptStore(db, { keyDir });
    expect(store.query({}).map((r) => `${r.seq}:${r.callId}`)).toEqual([
      "1:call_1",
      "2:call_1",
      "3:call_forged",
      "4:call_forged",
    ]);
    expect(store.verify()).toMatchObject({
      ok: false,
      brokenAt: "r_000004",
      reason: expect.stringContaining("removed or replaced"),
    });
    store.close();
    db.close();
  });

  test("a database signed with another key is named as such; appending to it is refused", () => {
    const { path, keyDir } = files();
    const db = openDatabase(path);
    createSqliteReceiptStore(db, { keyDir }).append(draft({ phase: "requested" }));
    db.close();
    const other = openDatabase(path);
    const store = createSqliteReceiptStore(other, { keyDir: join(keyDir, "other") });
    expect(store.verify()).toMatchObject({
      ok: false,
      brokenAt: "r_000001",
      reason: expect.stringContaining("signed with key"),
    });
    expect(() => store.append(draft({ phase: "started" }))).toThrow(
      /signed with key k_[0-9a-f]+, but .* holds key k_[0-9a-f]+: restore the key file/,
    );
    other.close();
  });
});

describe("sqlite receipt store: the key file", () => {
  test("created on first start in the config dir with mode 0600, reused after, refused when readable by others or malformed", () => {
    const { path, keyDir } = files();
    const db = openDatabase(path);
    const store = createSqliteReceiptStore(db, { keyDir });
    const keyFile = join(keyDir, "receipts.key");
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const text = readFileSync(keyFile, "utf8");
    expect(text).toMatch(/^[0-9a-f]{64}\n$/);
    expect(readFileSync(keyFile, "utf8")).not.toContain(
      String(db.query("SELECT value FROM receipt_meta WHERE name = 'key_id'").get()),
    );
    store.append(draft({ phase: "requested" }));
    expect(store.info()).toMatchObject({
      keyPath: keyFile,
      headPath: expect.stringContaining(join(keyDir, "receipt-heads")),
    });
    // The key never enters the database.
    const dump =
      JSON.stringify(db.query("SELECT * FROM receipts").all()) +
      JSON.stringify(db.query("SELECT * FROM receipt_meta").all());
    expect(dump).not.toContain(text.trim());
    store.close();
    expect(readFileSync(keyFile, "utf8")).toBe(text);
    createSqliteReceiptStore(db, { keyDir }).close();
    expect(readFileSync(keyFile, "utf8")).toBe(text);
    chmodSync(keyFile, 0o644);
    expect(() => createSqliteReceiptStore(db, { keyDir })).toThrow(
      /readable by other users \(mode 644\)\. Run: chmod 600/,
    );
    chmodSync(keyFile, 0o600);
    writeFileSync(keyFile, "not a key\n");
    expect(() => createSqliteReceiptStore(db, { keyDir })).toThrow(/is not a receipt key/);
    db.close();
  });
});

describe("sqlite receipt store: exact for any text", () => {
  test("fixed test vector (computed independently with openssl dgst -sha256 -mac HMAC)", () => {
    // printf … | openssl dgst -sha256 -mac HMAC -macopt hexkey:000102…1f over the encoding in mac.ts
    const key = Uint8Array.from({ length: 32 }, (_, i) => i);
    const text = {
      run_id: "run_1",
      call_id: "call_1",
      session_id: null,
      tool_path: "mail.send",
      phase: "denied",
      approval: "required",
      policy: "required",
      decision: "denied",
      decided_by: "bob",
      reason: "not today é\u0000\ud800😀",
      input_preview: '{"to":"a@b.c"}',
      output_preview: null,
      error: null,
      // #35: a NULL model is left out of the encoding, so this vector (from before) still holds.
      model: null,
    };
    const expected = "7a7d0657a74519df9eccf1e10fad63abf102a20216c6e9f36ceba58511fa75ed";
    expect(receiptMac(key, "0".repeat(64), { seq: 7, at: 1_700_000_000_000, durationMs: null, text })).toBe(expected);
    // The lone surrogate is stored as U+FFFD: the same bytes, the same digest.
    expect(
      receiptMac(key, "0".repeat(64), {
        seq: 7,
        at: 1_700_000_000_000,
        durationMs: null,
        text: { ...text, reason: "not today é\u0000\ufffd😀" },
      }),
    ).toBe(expected);
    expect(
      receiptMac(key, "0".repeat(64), {
        seq: 7,
        at: 1_700_000_000_000,
        durationMs: null,
        text: { ...text, reason: "not today é" },
      }),
    ).not.toBe(expected);
  });

  test("#35 fixed test vector with a model: the column is encoded after the others (openssl, as above)", () => {
    const key = Uint8Array.from({ length: 32 }, (_, i) => i);
    const text = {
      run_id: "run_1",
      call_id: "call_1",
      session_id: null,
      tool_path: "mail.send",
      phase: "denied",
      approval: "required",
      policy: "required",
      decision: "denied",
      decided_by: "bob",
      reason: "not today",
      input_preview: '{"to":"a@b.c"}',
      output_preview: null,
      error: null,
      model: "openai-compatible:llama3.1:8b",
    };
    const fields = { seq: 7, at: 1_700_000_000_000, durationMs: null, text };
    expect(receiptMac(key, "0".repeat(64), fields)).toBe(
      "6d2a223721fcea31775a04844a0e212e57eae60122fe8e6513ea2689001a49d1",
    );
    // Removing the model, or naming another, changes the MAC.
    expect(receiptMac(key, "0".repeat(64), { ...fields, text: { ...text, model: null } })).not.toBe(
      "6d2a223721fcea31775a04844a0e212e57eae60122fe8e6513ea2689001a49d1",
    );
    expect(
      receiptMac(key, "0".repeat(64), { ...fields, text: { ...text, model: "anthropic:claude-sonnet-5-5" } }),
    ).not.toBe("6d2a223721fcea31775a04844a0e212e57eae60122fe8e6513ea2689001a49d1");
  });

  test("lone surrogates, NUL, bidi and an emoji cut at the field cap verify from a fresh store; cuts keep graphemes whole", () => {
    const { path, keyDir } = files();
    const db = openDatabase(path);
    const store = createSqliteReceiptStore(db, { keyDir });
    const cap = RECEIPT_FIELD_CAPS.inputPreview;
    const family = "👨‍👩‍👧‍👦";
    const texts = [
      "a\ud800b\udc00c",
      "nul\u0000inside\u0000",
      "\u202etxt.exe\u200b",
      `${"x".repeat(cap - 60)}${family.repeat(40)}`,
      "\ud83d",
      "😀".repeat(cap),
    ];
    for (const [i, t] of texts.entries())
      store.append(draft({ callId: `c${i}`, phase: "requested", inputPreview: t, reason: t, error: t }));
    store.close();
    db.close();
    const again = openDatabase(path);
    const fresh = createSqliteReceiptStore(again, { keyDir });
    expect(fresh.verify()).toMatchObject({ ok: true, keyed: texts.length });
    const stored = fresh.byRun("run_1").map((r) => r.inputPreview!);
    expect(stored[0]).toBe("a\ufffdb\ufffdc");
    expect(stored[1]).toBe("nul\u0000inside\u0000");
    expect(stored[2]).toBe("\u202etxt.exe\u200b");
    for (const s of stored) expect((s as unknown as { isWellFormed(): boolean }).isWellFormed()).toBe(true);
    expect(stored[3]!.length).toBeLessThanOrEqual(cap);
    expect(stored[3]).toMatch(/^x+(👨‍👩‍👧‍👦)+… [\d,]+ more characters$/u);
    expect(stored[5]).toMatch(/^(😀)+… [\d,]+ more characters$/u);
    again.close();
  });
});

describe("sqlite receipt store: migration from the unkeyed per-run chain", () => {
  /** The receipts table as the previous release created it, with rows hashed its way. */
  function legacyDatabase(path: string): Receipt[] {
    const db = openDatabase(path);
    db.exec(LEGACY_SCHEMA);
    const rows: Receipt[] = [];
    const last = new Map<string, string>();
    const phases = [
      ["run_old", "requested"],
      ["run_old2", "requested"],
      ["run_old", "succeeded"],
    ] as const;
    for (const [i, [runId, phase]] of phases.entries()) {
      const content = {
        id: `r_00000${i + 1}`,
        seq: i + 1,
        runId,
        callId: `c_${runId}`,
        toolPath: "weather.get",
        phase,
        approval: "auto",
        policy: "auto",
        decision: "auto",
        at: 1000 + i,
        inputPreview: '{"q":"é"}',
      } as const;
      const prevHash = last.get(runId) ?? null;
      const hash = receiptHash(prevHash, content);
      db.prepare(
        "INSERT INTO receipts (seq, run_id, call_id, tool_path, phase, approval, policy, decision, input_preview, at, prev_hash, hash) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
      ).run(
        content.seq,
        runId,
        content.callId,
        content.toolPath,
        phase,
        "auto",
        "auto",
        "auto",
        content.inputPreview,
        content.at,
        prevHash,
        hash,
      );
      last.set(runId, hash);
      rows.push({ ...content, prevHash, hash, legacy: true } as Receipt);
    }
    db.close();
    return rows;
  }

  test("old rows keep verifying under the old scheme, marked legacy; the keyed chain continues from them", () => {
    const { path, keyDir } = files();
    const old = legacyDatabase(path);
    const db = openDatabase(path);
    const store = createSqliteReceiptStore(db, { keyDir });
    expect(store.byRun("run_old")).toEqual([old[0]!, old[2]!]);
    expect(store.verify()).toMatchObject({ ok: true, legacy: 3, keyed: 0 });
    expect(store.verifyRun("run_old")).toEqual({ ok: true });
    const next = store.append(
      draft({ runId: "run_old", callId: "c_run_old", phase: "failed", error: "gateway restarted" }),
    );
    expect(next.seq).toBe(4);
    expect(next.legacy).toBeUndefined();
    expect(store.verify()).toMatchObject({ ok: true, legacy: 3, keyed: 1, head: "checked" });
    expect(store.verifyRun("run_old")).toEqual({ ok: true });
    store.close();
    db.close();
  });

  test("a legacy row rewritten (its old hash recomputed) after the keyed chain began, or a keyed row relabelled legacy, is found", () => {
    const { path, keyDir } = files();
    const old = legacyDatabase(path);
    const db = openDatabase(path);
    const store = createSqliteReceiptStore(db, { keyDir });
    store.append(draft({ phase: "requested" }));
    const keyed = store.append(draft({ phase: "started", decision: "auto" }));
    store.close();
    db.close();
    const raw = new Database(path);
    raw.exec("DROP TRIGGER receipts_no_update");
    const edited = { ...old[1]!, inputPreview: '{"q":"evil"}' };
    raw
      .prepare("UPDATE receipts SET input_preview = ?, hash = ? WHERE seq = 2")
      .run(edited.inputPreview, receiptHash(null, edited));
    raw.close();
    const again = openDatabase(path);
    const check = createSqliteReceiptStore(again, { keyDir });
    expect(check.verify()).toMatchObject({
      ok: false,
      brokenAt: "r_000004",
      reason: expect.stringContaining("legacy receipts before the keyed chain changed"),
    });
    again.close();

    const raw2 = new Database(path);
    raw2.exec("DROP TRIGGER receipts_no_update");
    raw2
      .prepare("UPDATE receipts SET scheme = 1, prev_hash = NULL, hash = ? WHERE seq = ?")
      .run(receiptHash(null, { ...keyed }), keyed.seq);
    raw2.close();
    const third = openDatabase(path);
    expect(createSqliteReceiptStore(third, { keyDir }).verify()).toMatchObject({ ok: false, brokenAt: "r_000004" });
    third.close();
  });
  test("a legacy row edited without re-hashing, or unlinked from its run, is found under the legacy scheme", () => {
    for (const [sql, reason] of [
      [`UPDATE receipts SET input_preview = '{"q":"evil"}' WHERE seq = 3`, "content does not match its hash"],
      ["UPDATE receipts SET prev_hash = NULL WHERE seq = 3", "prev_hash does not match"],
    ] as const) {
      const { path, keyDir } = files();
      legacyDatabase(path);
      const raw = new Database(path);
      raw.exec("DROP TRIGGER IF EXISTS receipts_no_update");
      raw.exec(sql);
      raw.close();
      const db = openDatabase(path);
      const store = createSqliteReceiptStore(db, { keyDir });
      const broken = { ok: false, brokenAt: "r_000003", reason: expect.stringContaining(reason) };
      expect(store.verify()).toMatchObject(broken);
      expect(store.verifyRun("run_old")).toMatchObject(broken);
      expect(store.verifyRun("run_old2")).toEqual({ ok: true });
      store.close();
      db.close();
    }
  });
});

describe("sqlite receipt store: bounds", () => {
  test("every field is capped with a marker saying what was cut; past the run's budget, fields shrink", () => {
    const db = openDatabase(":memory:");
    const store = createSqliteReceiptStore(db);
    const huge = "y".repeat(1_000_000);
    const r = store.append(
      draft({
        phase: "failed",
        runId: `run_${huge}`,
        callId: huge,
        toolPath: huge,
        sessionId: huge,
        decidedBy: huge,
        reason: huge,
        inputPreview: huge,
        outputPreview: huge,
        error: huge,
        model: huge,
      }),
    );
    for (const [field, cap] of Object.entries(RECEIPT_FIELD_CAPS)) {
      const v = (r as unknown as Record<string, string>)[field]!;
      expect([field, v.length <= cap]).toEqual([field, true]);
      expect(v).toMatch(/… [\d,]+ more characters/);
    }
    expect(r.inputPreview).toMatch(/^y+… 99\d,\d{3} more characters$/);
    let spent = 0;
    let last: Receipt | undefined;
    for (let i = 0; spent < RUN_TEXT_BUDGET + 10_000; i++) {
      last = store.append(
        draft({ runId: "run_big", callId: `c${i}`, phase: "failed", error: huge, inputPreview: huge }),
      );
      spent += last.error!.length + last.inputPreview!.length;
    }
    expect(last!.error!.length).toBeLessThanOrEqual(RUN_SPENT_CAP);
    expect(last!.error).toMatch(/more characters \(run over its 200,000-character receipt budget\)$/);
    // Another run has its own budget.
    expect(store.append(draft({ runId: "run_small", phase: "failed", error: huge })).error!.length).toBeGreaterThan(
      RUN_SPENT_CAP,
    );
    expect(store.verify()).toMatchObject({ ok: true });
    db.close();
  });

  test("a hostile run of 500 calls with megabyte fields grows the database by less than the stated bound", () => {
    const { path, keyDir } = files();
    const db = openDatabase(path);
    const store = createSqliteReceiptStore(db, { keyDir });
    store.append(draft({ phase: "requested" }));
    const size = () =>
      (db.query("PRAGMA page_count").get() as { page_count: number }).page_count *
      (db.query("PRAGMA page_size").get() as { page_size: number }).page_size;
    const before = size();
    const junk = "[" + "1,".repeat(500_000) + "1]";
    const receipts = 500 * 4;
    for (let c = 0; c < 500; c++) {
      const base = {
        runId: "run_hostile",
        callId: `call_${c}`,
        toolPath: "items.put",
        approval: "auto",
        policy: "auto",
        sessionId: "s",
      } as const;
      store.stage({ ...base, phase: "requested", inputPreview: junk });
      store.stage({ ...base, phase: "failed", error: `invalid input for items.put: ${junk}` });
      store.stage({ ...base, phase: "started", decision: "auto", inputPreview: junk });
      store.stage({ ...base, phase: "succeeded", decision: "auto", outputPreview: junk });
    }
    const grown = (store.byRun("run_hostile").length, size() - before);
    // Stated bound (README "Security model"): 3 bytes per character of the run's text bound, plus
    // 300 bytes of row and index overhead per receipt.
    const bound = 3 * receiptTextBound(receipts).perRun + 300 * receipts;
    expect(bound).toBeLessThan(8 * 1024 * 1024);
    expect(grown).toBeLessThan(bound);
    expect(store.verify()).toMatchObject({ ok: true });
    store.close();
    db.close();
  });
});

describe("sqlite receipt store: durability", () => {
  test("two processes appending to one file at once both succeed and leave one verified chain", async () => {
    const dir = makeTempDir("oa-receipts-two-");
    const path = join(dir, "gateway.sqlite");
    const keyDir = join(dir, "config");
    const setup = openDatabase(path);
    createSqliteReceiptStore(setup, { keyDir }).append(draft({ runId: "run_setup", phase: "requested" }));
    setup.close();
    const script = join(dir, "writer.ts");
    await Bun.write(
      script,
      `import { openDatabase } from ${JSON.stringify(new URL("../../db/open.ts", import.meta.url).pathname)};
import { createSqliteReceiptStore } from ${JSON.stringify(new URL("./store.ts", import.meta.url).pathname)};
const store = createSqliteReceiptStore(openDatabase(process.argv[2]!), { keyDir: process.argv[3]! });
const runId = process.argv[4]!;
for (let i = 0; i < 300; i++) store.append({ runId, callId: "call_" + i, toolPath: "notes.add", approval: "auto", policy: "auto", phase: "requested" });
store.close();
`,
    );
    const writers = ["run_w1", "run_w2"].map((runId) =>
      Bun.spawn(["bun", script, path, keyDir, runId], { stdout: "pipe", stderr: "pipe" }),
    );
    const exits = await Promise.all(
      writers.map(async (w) => ({
        code: await w.exited,
        stderr: (await new Response(w.stderr).text()).split("\n").find((l) => /error/i.test(l)) ?? "",
      })),
    );
    expect(exits).toEqual([
      { code: 0, stderr: "" },
      { code: 0, stderr: "" },
    ]);

    const db = openDatabase(path);
    const store = createSqliteReceiptStore(db, { keyDir });
    expect([store.byRun("run_w1").length, store.byRun("run_w2").length]).toEqual([300, 300]);
    expect(store.verify()).toMatchObject({ ok: true, keyed: 601 });
    db.close();
  }, 60_000);

  test("a SIGKILLed child keeps every receipt it appended; reopening shows an intact chain that continues", async () => {
    const dir = makeTempDir("oa-receipts-kill-");
    const path = join(dir, "gateway.sqlite");
    const keyDir = join(dir, "config");
    const setup = openDatabase(path);
    const before = createSqliteReceiptStore(setup, { keyDir }).append(draft({ runId: "run_old", phase: "requested" }));
    setup.close();

    const script = join(dir, "child.ts");
    await Bun.write(
      script,
      `import { openDatabase } from ${JSON.stringify(new URL("../../db/open.ts", import.meta.url).pathname)};
import { createSqliteReceiptStore } from ${JSON.stringify(new URL("./store.ts", import.meta.url).pathname)};
const store = createSqliteReceiptStore(openDatabase(process.argv[2]!), { keyDir: process.argv[3]! });
const base = { runId: "run_k", callId: "call_k", toolPath: "calendar.create", approval: "required", policy: "required" } as const;
store.append({ ...base, phase: "requested", inputPreview: "{}" });
store.append({ ...base, phase: "approved", decision: "approved", decidedBy: "alice" });
store.append({ ...base, phase: "started", decision: "approved", decidedBy: "alice" });
console.log("STARTED");
setInterval(() => {}, 1000); // the tool "runs" forever; succeeded is never written
`,
    );
    const child = Bun.spawn(["bun", script, path, keyDir], { stdout: "pipe", stderr: "inherit" });
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
    const store = createSqliteReceiptStore(db, { keyDir });
    expect(store.byRun("run_old")).toEqual([before]);
    const run = store.byRun("run_k");
    expect(run.map((r) => r.phase)).toEqual(["requested", "approved", "started"]);
    expect(store.verifyRun("run_k")).toEqual({ ok: true });
    const failed = store.append({
      runId: "run_k",
      callId: "call_k",
      toolPath: "calendar.create",
      approval: "required",
      policy: "required",
      phase: "failed",
      error: "gateway restarted while the tool ran",
    });
    expect(failed.prevHash).toBe(run[2]!.hash);
    expect(store.verifyRun("run_k")).toEqual({ ok: true });
    expect(store.verify()).toMatchObject({ ok: true, keyed: 5, head: "checked" });
    db.close();
  });
});

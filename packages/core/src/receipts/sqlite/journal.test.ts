import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { appendFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit";
import { FULL_DISK_PRELUDE } from "@openassistant/testkit/full-disk.ts";
import { openDatabase } from "../../db/open.ts";
import { createSqliteReceiptStore } from "./store.ts";
import type { ReceiptDraft, ReceiptPhase } from "../types.ts";

function files() {
  const dir = makeTempDir("oa-journal-");
  return { path: join(dir, "gateway.sqlite"), keyDir: join(dir, "config") };
}

/** A database file, its key dir, and a store on them with the journal, as the gateway opens it. */
function journalStore() {
  const { path, keyDir } = files();
  const db = openDatabase(path);
  return { path, keyDir, db, store: createSqliteReceiptStore(db, { keyDir, journal: true }) };
}

const draft = (phase: ReceiptPhase, callId = "call_1"): ReceiptDraft => ({
  runId: "run_1",
  callId,
  toolPath: "calendar.create",
  approval: "auto",
  policy: "auto",
  phase,
});

/** Rows another connection sees: what SQLite has committed. */
function committed(path: string): string[] {
  const raw = new Database(path, { readonly: true });
  try {
    const rows = raw.query("SELECT call_id, phase FROM receipts ORDER BY seq").all() as Array<{
      call_id: string;
      phase: string;
    }>;
    return rows.map((r) => `${r.call_id}:${r.phase}`);
  } finally {
    raw.close();
  }
}

function journalFile(keyDir: string): string {
  const name = readdirSync(join(keyDir, "receipt-heads")).find((f) => f.endsWith(".journal"));
  if (!name) throw new Error(`no journal in ${keyDir}`);
  return join(keyDir, "receipt-heads", name);
}

const journalLines = (keyDir: string) => readFileSync(journalFile(keyDir), "utf8").split("\n").filter(Boolean);

test("a commit point writes the journal, not SQLite; a read folds the journal into SQLite and empties it", async () => {
  const { path, keyDir, db, store } = journalStore();
  store.stage(draft("requested"));
  store.stage(draft("started"));
  await store.durable();
  expect(committed(path)).toEqual([]);
  expect(journalLines(keyDir).map((l) => JSON.parse(l).d.phase)).toEqual(["requested", "started"]);

  expect(store.byRun("run_1").map((r) => r.phase)).toEqual(["requested", "started"]);
  expect(committed(path)).toEqual(["call_1:requested", "call_1:started"]);
  expect(journalLines(keyDir)).toEqual([]);
  expect(store.verify()).toMatchObject({ ok: true, keyed: 2, head: "checked" });
  store.close();
  db.close();
});

test("journaled receipts reach SQLite on their own shortly after, without a read; then the journal starts over", async () => {
  const { path, keyDir, db, store } = journalStore();
  store.stage(draft("requested"));
  await store.durable();
  // The worker moves the head once the store can see the batch as committed: wait for that.
  const head = () => readdirSync(join(keyDir, "receipt-heads")).find((f) => f.endsWith(".head"));
  for (let i = 0; i < 100 && !head(); i++) await Bun.sleep(10);
  expect(committed(path)).toEqual(["call_1:requested"]);
  // Emptied in a quiet moment after the worker has committed all it was sent, not on the path of
  // the next commit point (a replay would skip the committed line anyway).
  for (let i = 0; i < 100 && journalLines(keyDir).length > 0; i++) await Bun.sleep(10);
  expect(journalLines(keyDir)).toEqual([]);
  expect(committed(path)).toEqual(["call_1:requested"]);
  store.stage(draft("started"));
  await store.durable();
  expect(journalLines(keyDir).map((l) => JSON.parse(l).d.phase)).toEqual(["started"]);
  store.close();
  db.close();
});

test("a store opened after a crash commits what the journal holds, once, and the chain goes on", async () => {
  const { path, keyDir, db, store } = journalStore();
  store.stage(draft("requested"));
  store.stage(draft("started"));
  await store.durable();
  // What a killed process leaves: the journal as it was, nothing in SQLite.
  const left = readFileSync(journalFile(keyDir), "utf8");
  store.close();
  db.close();
  expect(committed(path)).toEqual(["call_1:requested", "call_1:started"]);
  // Killed between the fold's commit and emptying the journal: the records are in SQLite already.
  writeFileSync(journalFile(keyDir), left);

  const again = openDatabase(path);
  const reopened = createSqliteReceiptStore(again, { keyDir, journal: true });
  expect(reopened.byRun("run_1").map((r) => r.phase)).toEqual(["requested", "started"]);
  expect(journalLines(keyDir)).toEqual([]);
  reopened.stage(draft("succeeded"));
  await reopened.durable();
  expect(reopened.verify()).toMatchObject({ ok: true, keyed: 3, head: "checked" });
  reopened.close();
  again.close();
});

test("a process killed right after its commit point: the receipts are only in the journal, and the next store commits them", async () => {
  const { path, keyDir } = files();
  const script = `
    const { openDatabase } = await import(${JSON.stringify(join(import.meta.dir, "../../db/open.ts"))});
    const { createSqliteReceiptStore } = await import(${JSON.stringify(join(import.meta.dir, "store.ts"))});
    const store = createSqliteReceiptStore(openDatabase(${JSON.stringify(path)}), { keyDir: ${JSON.stringify(keyDir)}, journal: true });
    for (const phase of ["requested", "started"])
      store.stage({ runId: "run_1", callId: "call_1", toolPath: "calendar.create", approval: "auto", policy: "auto", phase });
    await store.durable();
    process.kill(process.pid, "SIGKILL");`;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "ignore", stderr: "pipe" });
  expect(await child.exited).not.toBe(0);
  expect(child.signalCode).toBe("SIGKILL");
  expect(committed(path)).toEqual([]);
  expect(journalLines(keyDir)).toHaveLength(2);

  const db = openDatabase(path);
  const store = createSqliteReceiptStore(db, { keyDir, journal: true });
  expect(committed(path)).toEqual(["call_1:requested", "call_1:started"]);
  expect(store.verify()).toMatchObject({ ok: true, keyed: 2 });
  store.close();
  db.close();
});

test("a journal left by a killed process is committed by the next store, and a cut-off last line is ignored", () => {
  const { path, keyDir } = files();
  const first = openDatabase(path);
  const store = createSqliteReceiptStore(first, { keyDir, journal: true });
  store.append(draft("requested", "call_0"));
  const file = journalFile(keyDir);
  store.close();
  first.close();
  const at = Date.now();
  appendFileSync(
    file,
    `${JSON.stringify({ at, d: draft("requested") })}\n${JSON.stringify({ at, d: draft("started") })}\n{"at":${at},"d":{"ru`,
  );

  const db = openDatabase(path);
  const reopened = createSqliteReceiptStore(db, { keyDir });
  expect(committed(path)).toEqual(["call_0:requested", "call_1:requested", "call_1:started"]);
  expect(readFileSync(file, "utf8")).toBe("");
  expect(reopened.verify()).toMatchObject({ ok: true, keyed: 3 });
  reopened.close();
  db.close();
});

test("a damaged journal record stops the store with the file and line named", () => {
  const { path, keyDir } = files();
  const db = openDatabase(path);
  createSqliteReceiptStore(db, { keyDir, journal: true }).close();
  const file = journalFile(keyDir);
  writeFileSync(file, `not json\n${JSON.stringify({ at: 1, d: draft("requested") })}\n`);
  expect(() => createSqliteReceiptStore(db, { keyDir })).toThrow(`${file} line 1 is not a receipt journal record`);
  writeFileSync(file, `${JSON.stringify({ at: 1, d: { ...draft("requested"), phase: "done" } })}\n`);
  expect(() => createSqliteReceiptStore(db, { keyDir })).toThrow(`${file} record 1: phase must be one of`);
  // Nothing was committed and the file is kept for the operator.
  expect(committed(path)).toEqual([]);
  expect(readFileSync(file, "utf8")).toContain('"done"');
  db.close();
});

test("one process owns the journal: a second store on the same database commits straight to SQLite", async () => {
  const { path, keyDir } = files();
  const db = openDatabase(path);
  const owner = createSqliteReceiptStore(db, { keyDir, journal: true });
  const other = openDatabase(path);
  const second = createSqliteReceiptStore(other, { keyDir, journal: true });
  second.stage(draft("requested", "call_2"));
  await second.durable();
  expect(committed(path)).toEqual(["call_2:requested"]);
  owner.stage(draft("requested"));
  await owner.durable();
  expect(committed(path)).toEqual(["call_2:requested"]);
  expect(owner.byRun("run_1").map((r) => `${r.callId}:${r.phase}`)).toEqual(["call_2:requested", "call_1:requested"]);
  expect(owner.verify()).toMatchObject({ ok: true, keyed: 2 });
  second.close();
  other.close();
  // Closing releases it: the next store takes it over.
  owner.close();
  const third = createSqliteReceiptStore(db, { keyDir, journal: true });
  third.stage(draft("started"));
  await third.durable();
  expect(committed(path)).toEqual(["call_2:requested", "call_1:requested"]);
  third.close();
  expect(committed(path)).toEqual(["call_2:requested", "call_1:requested", "call_1:started"]);
  db.close();
});

/**
 * A journaled store with one receipt through a commit point while another connection holds
 * SQLite's write lock, `ms` later (the worker's fold is waiting for the lock by then); `unlock` releases it.
 */
async function committedWhileLocked(ms: number) {
  const opened = journalStore();
  const locker = new Database(opened.path);
  locker.exec("BEGIN IMMEDIATE");
  opened.store.stage(draft("requested"));
  await opened.store.durable();
  await Bun.sleep(ms);
  const unlock = () => {
    locker.exec("ROLLBACK");
    locker.close();
  };
  return { ...opened, unlock };
}

test("while SQLite is locked, commit points still complete in the journal; the fold catches up after", async () => {
  const { path, keyDir, db, store, unlock } = await committedWhileLocked(100);
  expect(journalLines(keyDir)).toHaveLength(1);
  expect(committed(path)).toEqual([]);
  unlock();
  expect(store.byRun("run_1").map((r) => r.phase)).toEqual(["requested"]);
  expect(journalLines(keyDir)).toEqual([]);
  store.close();
  db.close();
});

test("the journal is not emptied while the worker still holds records it has not committed; once it has, it is", async () => {
  // 300 ms: past the store's quiet-moment check, more than once, while the worker waits for the lock.
  const { path, keyDir, db, store, unlock } = await committedWhileLocked(300);
  expect(journalLines(keyDir)).toHaveLength(1);
  expect(committed(path)).toEqual([]);
  unlock();
  // No read: the worker commits on its own, and the journal starts over after it.
  for (let i = 0; i < 200 && journalLines(keyDir).length > 0; i++) await Bun.sleep(10);
  expect(journalLines(keyDir)).toEqual([]);
  expect(committed(path)).toEqual(["call_1:requested"]);
  store.close();
  db.close();
});

test("a fold that fails is reported by the next read and keeps the receipts; the one after commits them", async () => {
  const { path, keyDir, db, store } = journalStore();
  const raw = new Database(path);
  raw.exec("CREATE TRIGGER refuse BEFORE INSERT ON receipts BEGIN SELECT RAISE(ABORT, 'the disk says no'); END;");
  store.stage(draft("requested"));
  await store.durable();
  expect(() => store.byRun("run_1")).toThrow("the disk says no");
  expect(journalLines(keyDir)).toHaveLength(1);
  raw.exec("DROP TRIGGER refuse");
  raw.close();
  expect(store.byRun("run_1").map((r) => r.phase)).toEqual(["requested"]);
  expect(store.verify()).toMatchObject({ ok: true, keyed: 1 });
  store.close();
  db.close();
});

test("if the fold worker dies, the store commits what the journal holds itself and goes on without it", async () => {
  const { path, keyDir, db, store } = journalStore();
  // The worker reads the chain head when it starts (a few ms later, in its own thread): a damaged
  // head file makes it throw there, and it stops.
  const head = join(keyDir, "receipt-heads", `${readdirSync(join(keyDir, "receipt-heads"))[0]!.split(".")[0]}.head`);
  writeFileSync(head, "not a head");
  store.stage(draft("requested"));
  store.stage(draft("started"));
  await store.durable();
  expect(journalLines(keyDir)).toHaveLength(2);
  expect(committed(path)).toEqual([]);
  // settled() waits for the worker (no guess at how long it takes to start and die on a busy
  // machine); once it has stopped, the store commits what the journal holds itself.
  await store.settled();
  rmSync(head);
  expect(committed(path)).toEqual(["call_1:requested", "call_1:started"]);
  expect(store.byRun("run_1").map((r) => r.phase)).toEqual(["requested", "started"]);
  expect(journalLines(keyDir)).toEqual([]);
  // From here on, commit points commit straight to SQLite.
  store.stage(draft("succeeded"));
  await store.durable();
  expect(committed(path)).toEqual(["call_1:requested", "call_1:started", "call_1:succeeded"]);
  expect(store.verify()).toMatchObject({ ok: true, keyed: 3 });
  store.close();
  db.close();
});

test("a close whose last commit fails reports it, releases the journal, and the next store commits what it held", async () => {
  const { path, keyDir, db, store } = journalStore();
  const raw = new Database(path);
  raw.exec("CREATE TRIGGER refuse BEFORE INSERT ON receipts BEGIN SELECT RAISE(ABORT, 'the disk says no'); END;");
  store.stage(draft("requested"));
  await store.durable();
  expect(() => store.close()).toThrow("the disk says no");
  // The worker may still be retrying (it is being terminated): wait for its transaction.
  raw.exec("PRAGMA busy_timeout = 5000");
  raw.exec("DROP TRIGGER refuse");
  raw.close();
  expect(journalLines(keyDir)).toHaveLength(1);

  const next = createSqliteReceiptStore(db, { keyDir, journal: true });
  expect(committed(path)).toEqual(["call_1:requested"]);
  expect(next.verify()).toMatchObject({ ok: true, keyed: 1 });
  next.close();
  db.close();
});

test("sync() gets journaled receipts into the table for SQL that bypasses the store (the console's run list)", async () => {
  const { path, db, store } = journalStore();
  store.stage(draft("requested"));
  await store.durable();
  expect(committed(path)).toEqual([]);
  store.sync();
  expect(committed(path)).toEqual(["call_1:requested"]);
  store.close();
  db.close();
});

test("a store without the journal option creates no journal or lock file (a CLI read writes nothing there)", () => {
  const { path, keyDir } = files();
  const db = openDatabase(path);
  const store = createSqliteReceiptStore(db, { keyDir });
  store.append(draft("requested"));
  store.close(); // writes the head: the folder exists
  expect(readdirSync(join(keyDir, "receipt-heads")).filter((f) => f.includes(".journal"))).toEqual([]);
  db.close();
});

test("a full disk: the commit point that cannot be written fails clearly; once there is room again the receipts go on, and after a crash nothing is lost or unreadable", async () => {
  const { path, keyDir } = files();
  // A real write failure (FULL_DISK_PRELUDE): every file the child writes is limited, the journal
  // and SQLite alike.
  const script = `${FULL_DISK_PRELUDE}
    const { statSync, readdirSync } = await import("node:fs");
    const { openDatabase } = await import(${JSON.stringify(join(import.meta.dir, "../../db/open.ts"))});
    const { createSqliteReceiptStore } = await import(${JSON.stringify(join(import.meta.dir, "store.ts"))});
    const store = createSqliteReceiptStore(openDatabase(${JSON.stringify(path)}), { keyDir: ${JSON.stringify(keyDir)}, journal: true });
    const call = (callId, phase) => store.stage({ runId: "run_1", callId, toolPath: "calendar.create", approval: "auto", policy: "auto", phase });
    call("call_1", "requested"); call("call_1", "started");
    await store.durable();
    const dir = ${JSON.stringify(join(keyDir, "receipt-heads"))};
    const journal = dir + "/" + readdirSync(dir).find((f) => f.endsWith(".journal"));
    // Room for a few more bytes of the journal, not for a whole record: the next write is cut short.
    limitFileSize(statSync(journal).size + 40);
    call("call_2", "requested"); call("call_2", "started");
    const full = await store.durable().then(() => "durable", (e) => "refused: " + e.message);
    limitFileSize("unlimited");
    call("call_3", "requested");
    const after = await store.durable().then(() => "durable", (e) => "refused: " + e.message);
    console.log(JSON.stringify({ full, after }));
    process.kill(process.pid, "SIGKILL");`;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  await child.exited;
  expect(child.signalCode, err).toBe("SIGKILL");
  const { full, after } = JSON.parse(out) as { full: string; after: string };
  expect(full).toMatch(/^refused: .*(too large|EFBIG|full|disk|I\/O)/i);
  expect(after).toBe("durable");

  const db = openDatabase(path);
  const store = createSqliteReceiptStore(db, { keyDir, journal: true });
  // Everything staged is there once, in order: the refused commit's receipts went with the next one.
  expect(committed(path)).toEqual([
    "call_1:requested",
    "call_1:started",
    "call_2:requested",
    "call_2:started",
    "call_3:requested",
  ]);
  expect(store.verify()).toMatchObject({ ok: true, keyed: 5 });
  store.close();
  db.close();
});

test("settled() waits for the worker to commit what was staged; a run already in is then read without committing other runs' receipts", async () => {
  const { path, db, store } = journalStore();
  store.stage(draft("requested"));
  store.stage(draft("started"));
  await store.settled();
  expect(committed(path)).toEqual(["call_1:requested", "call_1:started"]);
  // Another conversation stages a receipt; reading run_1 (all in) must not hold the thread to commit it.
  store.stage({ ...draft("requested", "call_2"), runId: "run_2" });
  expect(store.byRun("run_1").map((r) => r.phase)).toEqual(["requested", "started"]);
  expect(committed(path)).toEqual(["call_1:requested", "call_1:started"]);
  // A run with a receipt not yet in is committed first, as before.
  expect(store.byRun("run_2").map((r) => r.callId)).toEqual(["call_2"]);
  expect(committed(path)).toEqual(["call_1:requested", "call_1:started", "call_2:requested"]);
  store.stage(draft("succeeded"));
  await store.settled();
  expect(committed(path)).toEqual(["call_1:requested", "call_1:started", "call_2:requested", "call_1:succeeded"]);
  store.close();
  db.close();
});

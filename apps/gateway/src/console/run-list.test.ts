import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openDatabase } from "@openassistant/core/db";
import { openSqliteReceipts } from "@openassistant/core/receipts";
import type { ReceiptDraft } from "@openassistant/core/testing";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { createSessionStore } from "../sessions/sqlite/store.ts";
import { createRunCodeStore } from "./sqlite/run-code.ts";

async function setup() {
  const dir = makeTempDir("oa-console-runs-");
  const db = openDatabase(join(dir, "db.sqlite"));
  const sessions = createSessionStore(db);
  const receipts = openSqliteReceipts(db, { keyDir: join(dir, "config") });
  const code = createRunCodeStore(db);
  const a = await sessions.getOrCreate("discord:dm:1", "discord");
  const b = await sessions.getOrCreate("terminal", "terminal");
  const call = (runId: string, callId: string, toolPath: string, phases: ReceiptDraft["phase"][], extra = {}) => {
    for (const phase of phases)
      receipts.stage({ runId, callId, toolPath, phase, approval: "auto", policy: "auto", ...extra });
  };
  call("run_a", "c1", "notes.read", ["requested", "started", "succeeded"], { sessionId: a.id, inputPreview: "{}" });
  call("run_a", "c2", "mail.send", ["requested", "started", "failed"], { sessionId: a.id, error: "SMTP refused" });
  call("run_b", "c3", "notes.write", ["requested"], { sessionId: b.id, inputPreview: '{"text":"100%_done"}' });
  code.record("run_b", "turn_1", "await tools.notes.write({ text: 'x' }) // unique-marker");
  await receipts.durable();
  return { db, a, b, sessions, reader: receipts, close: async () => (await receipts.close(), db.close()) };
}

describe("run list queries", () => {
  test("runs newest first with conversation, tools, call count and worst status; filters combine", async () => {
    const s = await setup();
    const all = await s.reader.runs();
    expect(all.map((r) => [r.runId, r.status, r.calls, r.conversation])).toEqual([
      ["run_b", "pending", 1, "terminal"],
      ["run_a", "failed", 2, "discord:dm:1"],
    ]);
    expect(all[1]!.tools).toEqual(["notes.read", "mail.send"]);
    expect((await s.reader.runs({ session: s.a.id })).map((r) => r.runId)).toEqual(["run_a"]);
    expect((await s.reader.runs({ tool: "notes.*" })).map((r) => r.runId)).toEqual(["run_b", "run_a"]);
    expect((await s.reader.runs({ tool: "mail.send" })).map((r) => r.runId)).toEqual(["run_a"]);
    expect((await s.reader.runs({ status: "failed" })).map((r) => r.runId)).toEqual(["run_a"]);
    expect(await s.reader.runs({ status: "succeeded" })).toEqual([]);
    expect(await s.reader.runs({ since: Date.now() + 60_000 })).toEqual([]);
    expect(await s.reader.runs({ until: 0 })).toEqual([]);
    await s.close();
  });

  test("search finds ids, errors, inputs (LIKE wildcards taken literally) and the model's code", async () => {
    const s = await setup();
    expect((await s.reader.runs({ q: "SMTP" })).map((r) => r.runId)).toEqual(["run_a"]);
    expect((await s.reader.runs({ q: "c3" })).map((r) => r.runId)).toEqual(["run_b"]);
    expect((await s.reader.runs({ q: "r_000001" })).map((r) => r.runId)).toEqual(["run_a"]);
    expect((await s.reader.runs({ q: "100%_" })).map((r) => r.runId)).toEqual(["run_b"]);
    expect(await s.reader.runs({ q: "0%x" })).toEqual([]);
    expect((await s.reader.runs({ q: "unique-marker" })).map((r) => r.runId)).toEqual(["run_b"]);
    expect((await s.reader.conversations()).map((c) => c.key).sort()).toEqual(["discord:dm:1", "terminal"]);
    await s.close();
  });
  test("a run's turn: linked through its recorded code, else through the finished turn that lists it", async () => {
    const s = await setup();
    await s.sessions.startTurn({
      id: "turn_1",
      sessionId: s.b.id,
      userId: "terminal:me",
      request: "write a note",
      model: "m1",
    });
    await s.sessions.startTurn({ id: "turn_0", sessionId: s.a.id, userId: "discord:1", request: "read and mail" });
    await s.sessions.finishTurn("turn_0", {
      stopReason: "answered",
      unverified: false,
      runIds: ["run_a"],
      answer: "Done.",
    });
    // The setup wrote the receipts first; in the gateway a turn starts before its runs.
    s.db.exec("UPDATE turns SET started_at = 1");
    const rows = await s.reader.runs();
    // run_b's code names turn_1 (still running); run_a has no code recorded: the finished turn listing it.
    expect(rows.map((r) => [r.runId, r.turn?.request, r.turn?.userId, r.turn?.answer])).toEqual([
      ["run_b", "write a note", "terminal:me", undefined],
      ["run_a", "read and mail", "discord:1", "Done."],
    ]);
    const later = Date.now() + 60_000;
    expect(await s.reader.turnOfRun("run_a", s.a.id, later)).toMatchObject({
      turnId: "turn_0",
      answer: "Done.",
      unverified: false,
    });
    expect(await s.reader.turnOfRun("run_a", s.b.id, later)).toBeUndefined();
    expect(await s.reader.turnOfRun("run_%", s.a.id, later)).toBeUndefined();
    // A run that started before the session's turn is not that turn's.
    expect(await s.reader.turnOfRun("run_a", s.a.id, 0)).toBeUndefined();
    // A later turn of the session that does not list the run hides nothing: the run's own turn is the newest before it.
    await s.sessions.startTurn({ id: "turn_2", sessionId: s.a.id, request: "later" });
    expect(await s.reader.turnOfRun("run_a", s.a.id, 2)).toMatchObject({ turnId: "turn_0" });
    expect(await s.reader.conversationKeys([s.a.id, s.b.id, "ses_nope"])).toEqual(
      new Map([
        [s.a.id, "discord:dm:1"],
        [s.b.id, "terminal"],
      ]),
    );
    await s.close();
  });
});

import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openDatabase } from "@openassistant/core/db";
import { createSqliteReceiptStore } from "@openassistant/core/receipts";
import type { ReceiptDraft } from "@openassistant/core/receipts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { createSessionStore } from "../sessions/store.ts";
import { createRunCodeStore } from "./run-code.ts";
import { listConversations, listRuns, turnOfRun } from "./run-queries.ts";

function setup() {
  const dir = makeTempDir("oa-console-runs-");
  const db = openDatabase(join(dir, "db.sqlite"));
  const sessions = createSessionStore(db);
  const receipts = createSqliteReceiptStore(db, { keyDir: join(dir, "config") });
  const code = createRunCodeStore(db);
  const a = sessions.getOrCreate("discord:dm:1", "discord");
  const b = sessions.getOrCreate("terminal", "terminal");
  const call = (runId: string, callId: string, toolPath: string, phases: ReceiptDraft["phase"][], extra = {}) => {
    for (const phase of phases)
      receipts.append({ runId, callId, toolPath, phase, approval: "auto", policy: "auto", ...extra });
  };
  call("run_a", "c1", "notes.read", ["requested", "started", "succeeded"], { sessionId: a.id, inputPreview: "{}" });
  call("run_a", "c2", "mail.send", ["requested", "started", "failed"], { sessionId: a.id, error: "SMTP refused" });
  call("run_b", "c3", "notes.write", ["requested"], { sessionId: b.id, inputPreview: '{"text":"100%_done"}' });
  code.record("run_b", "turn_1", "await tools.notes.write({ text: 'x' }) // unique-marker");
  return { db, a, b, sessions, close: () => (receipts.close(), db.close()) };
}

describe("run list queries", () => {
  test("runs newest first with conversation, tools, call count and worst status; filters combine", () => {
    const s = setup();
    const all = listRuns(s.db);
    expect(all.map((r) => [r.runId, r.status, r.calls, r.conversation])).toEqual([
      ["run_b", "pending", 1, "terminal"],
      ["run_a", "failed", 2, "discord:dm:1"],
    ]);
    expect(all[1]!.tools).toEqual(["notes.read", "mail.send"]);
    expect(listRuns(s.db, { session: s.a.id }).map((r) => r.runId)).toEqual(["run_a"]);
    expect(listRuns(s.db, { tool: "notes.*" }).map((r) => r.runId)).toEqual(["run_b", "run_a"]);
    expect(listRuns(s.db, { tool: "mail.send" }).map((r) => r.runId)).toEqual(["run_a"]);
    expect(listRuns(s.db, { status: "failed" }).map((r) => r.runId)).toEqual(["run_a"]);
    expect(listRuns(s.db, { status: "succeeded" })).toEqual([]);
    expect(listRuns(s.db, { since: Date.now() + 60_000 })).toEqual([]);
    expect(listRuns(s.db, { until: 0 })).toEqual([]);
    s.close();
  });

  test("search finds ids, errors, inputs (LIKE wildcards taken literally) and the model's code", () => {
    const s = setup();
    expect(listRuns(s.db, { q: "SMTP" }).map((r) => r.runId)).toEqual(["run_a"]);
    expect(listRuns(s.db, { q: "c3" }).map((r) => r.runId)).toEqual(["run_b"]);
    expect(listRuns(s.db, { q: "r_000001" }).map((r) => r.runId)).toEqual(["run_a"]);
    expect(listRuns(s.db, { q: "100%_" }).map((r) => r.runId)).toEqual(["run_b"]);
    expect(listRuns(s.db, { q: "0%x" })).toEqual([]);
    expect(listRuns(s.db, { q: "unique-marker" }).map((r) => r.runId)).toEqual(["run_b"]);
    expect(
      listConversations(s.db)
        .map((c) => c.key)
        .sort(),
    ).toEqual(["discord:dm:1", "terminal"]);
    s.close();
  });

  test("a run's turn: linked through its recorded code, else through the finished turn that lists it", () => {
    const s = setup();
    s.sessions.startTurn({
      id: "turn_1",
      sessionId: s.b.id,
      userId: "terminal:me",
      request: "write a note",
      model: "m1",
    });
    s.sessions.startTurn({ id: "turn_0", sessionId: s.a.id, userId: "discord:1", request: "read and mail" });
    s.sessions.finishTurn("turn_0", { stopReason: "answered", unverified: false, runIds: ["run_a"], answer: "Done." });
    // The setup wrote the receipts first; in the gateway a turn starts before its runs.
    s.db.exec("UPDATE turns SET started_at = 1");
    const rows = listRuns(s.db);
    // run_b's code names turn_1 (still running); run_a has no code recorded: the finished turn listing it.
    expect(rows.map((r) => [r.runId, r.turn?.request, r.turn?.userId, r.turn?.answer])).toEqual([
      ["run_b", "write a note", "terminal:me", undefined],
      ["run_a", "read and mail", "discord:1", "Done."],
    ]);
    const later = Date.now() + 60_000;
    expect(turnOfRun(s.db, "run_a", s.a.id, later)).toMatchObject({
      turnId: "turn_0",
      answer: "Done.",
      unverified: false,
    });
    expect(turnOfRun(s.db, "run_a", s.b.id, later)).toBeUndefined();
    expect(turnOfRun(s.db, "run_%", s.a.id, later)).toBeUndefined();
    // A run that started before the session's turn is not that turn's.
    expect(turnOfRun(s.db, "run_a", s.a.id, 0)).toBeUndefined();
    // A later turn of the session that does not list the run hides nothing: the run's own turn is the newest before it.
    s.sessions.startTurn({ id: "turn_2", sessionId: s.a.id, request: "later" });
    expect(turnOfRun(s.db, "run_a", s.a.id, 2)).toMatchObject({ turnId: "turn_0" });
    s.close();
  });
});
